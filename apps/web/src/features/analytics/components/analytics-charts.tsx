import { Grid, type Theme, useTheme } from '@mui/material';
import { BarChart } from '@mui/x-charts/BarChart';
import { LineChart } from '@mui/x-charts/LineChart';
import { SEVERITIES, type TSeverity, type TTargetMetrics } from '@perimeter/contracts';
import { useTranslation } from 'react-i18next';
import { ChartCard } from './chart-card.tsx';

const HEIGHT = 280;

/** Severity colours from the theme palette, so both themes keep their contrast. */
export function severityColors(theme: Theme): Record<TSeverity, string> {
  return {
    critical: theme.palette.error.main,
    high: theme.palette.warning.main,
    medium: theme.palette.secondary.main,
    low: theme.palette.info.main,
    informational: theme.palette.grey[500],
    unknown: theme.palette.text.disabled,
  };
}

function useShortDate() {
  const { i18n } = useTranslation();
  const fmt = new Intl.DateTimeFormat(i18n.language, { day: 'numeric', month: 'short', timeZone: 'UTC' });
  return (date: string) => fmt.format(new Date(`${date}T00:00:00Z`));
}

export function AnalyticsCharts({ metrics }: { metrics: TTargetMetrics }) {
  const { t } = useTranslation();
  const theme = useTheme();
  const colors = severityColors(theme);
  const shortDate = useShortDate();
  const severityLabel = (s: TSeverity) => t(`analytics.severity.${s}`);
  const classLabel = (c: string) => t(`analytics.classes.${c}`);

  const timeline = metrics.severity_timeline;
  const newFixed = metrics.new_vs_fixed;
  const hasNewFixed = newFixed.some((p) => p.new > 0 || p.fixed > 0);
  const byClassEmpty = metrics.by_class.every((c) => c.total === 0);

  return (
    <Grid container spacing={3}>
      <Grid size={{ xs: 12 }}>
        <ChartCard
          testId="chart-severity-timeline"
          title={t('analytics.charts.severityTimeline.title')}
          description={t('analytics.charts.severityTimeline.description')}
          isEmpty={timeline.length === 0}
          emptyText={t('analytics.charts.severityTimeline.empty')}
          table={{
            head: [t('analytics.columns.date'), ...SEVERITIES.map(severityLabel)],
            rows: timeline.map((p) => [p.date, ...SEVERITIES.map((s) => p.findings[s])]),
          }}
        >
          <LineChart
            height={HEIGHT}
            xAxis={[{ scaleType: 'point', data: timeline.map((p) => shortDate(p.date)) }]}
            yAxis={[{ tickMinStep: 1, min: 0 }]}
            series={SEVERITIES.filter((s) => timeline.some((p) => p.findings[s] > 0)).map((s) => ({
              data: timeline.map((p) => p.findings[s]),
              label: severityLabel(s),
              color: colors[s],
              curve: 'linear' as const,
              showMark: true,
            }))}
          />
        </ChartCard>
      </Grid>
      <Grid size={{ xs: 12 }}>
        <ChartCard
          testId="chart-new-vs-fixed"
          title={t('analytics.charts.newVsFixed.title')}
          description={t('analytics.charts.newVsFixed.description')}
          isEmpty={!hasNewFixed}
          emptyText={t('analytics.charts.newVsFixed.empty')}
          table={{
            head: [t('analytics.columns.date'), t('analytics.series.new'), t('analytics.series.fixed')],
            rows: newFixed.filter((p) => p.new > 0 || p.fixed > 0).map((p) => [p.date, p.new, p.fixed]),
          }}
        >
          <BarChart
            height={HEIGHT}
            xAxis={[{ scaleType: 'band', data: newFixed.map((p) => shortDate(p.date)) }]}
            yAxis={[{ tickMinStep: 1, min: 0 }]}
            series={[
              { data: newFixed.map((p) => p.new), label: t('analytics.series.new'), color: colors.critical },
              {
                data: newFixed.map((p) => p.fixed),
                label: t('analytics.series.fixed'),
                color: theme.palette.success.main,
              },
            ]}
          />
        </ChartCard>
      </Grid>
      <Grid size={{ xs: 12, md: 6 }}>
        <ChartCard
          testId="chart-by-class"
          title={t('analytics.charts.byClass.title')}
          description={t('analytics.charts.byClass.description')}
          isEmpty={byClassEmpty}
          emptyText={t('analytics.charts.byClass.empty')}
          table={{
            head: [
              t('analytics.columns.class'),
              ...SEVERITIES.map(severityLabel),
              t('analytics.columns.total'),
            ],
            rows: metrics.by_class.map((c) => [
              classLabel(c.subclass),
              ...SEVERITIES.map((s) => c.findings[s]),
              c.total,
            ]),
          }}
        >
          <BarChart
            height={HEIGHT}
            xAxis={[{ scaleType: 'band', data: metrics.by_class.map((c) => classLabel(c.subclass)) }]}
            yAxis={[{ tickMinStep: 1, min: 0 }]}
            series={SEVERITIES.filter((s) => metrics.by_class.some((c) => c.findings[s] > 0)).map((s) => ({
              data: metrics.by_class.map((c) => c.findings[s]),
              label: severityLabel(s),
              color: colors[s],
              stack: 'severity',
            }))}
          />
        </ChartCard>
      </Grid>
      <Grid size={{ xs: 12, md: 6 }}>
        <ChartCard
          testId="chart-technologies"
          title={t('analytics.charts.technologies.title')}
          description={t('analytics.charts.technologies.description')}
          isEmpty={metrics.top_technologies.length === 0}
          emptyText={t('analytics.charts.technologies.empty')}
          table={{
            head: [t('analytics.columns.technology'), t('analytics.columns.hosts')],
            rows: metrics.top_technologies.map((x) => [x.name, x.hosts]),
          }}
        >
          <BarChart
            height={HEIGHT}
            layout="horizontal"
            yAxis={[{ scaleType: 'band', data: metrics.top_technologies.map((x) => x.name), width: 110 }]}
            xAxis={[{ tickMinStep: 1, min: 0 }]}
            series={[
              {
                data: metrics.top_technologies.map((x) => x.hosts),
                label: t('analytics.columns.hosts'),
                color: theme.palette.primary.main,
              },
            ]}
            hideLegend
          />
        </ChartCard>
      </Grid>
      <Grid size={{ xs: 12, md: 6 }}>
        <ChartCard
          testId="chart-ports"
          title={t('analytics.charts.ports.title')}
          description={t('analytics.charts.ports.description')}
          isEmpty={metrics.open_ports.length === 0}
          emptyText={t('analytics.charts.ports.empty')}
          table={{
            head: [t('analytics.columns.port'), t('analytics.columns.hosts')],
            rows: metrics.open_ports.map((x) => [x.port, x.hosts]),
          }}
        >
          <BarChart
            height={HEIGHT}
            xAxis={[{ scaleType: 'band', data: metrics.open_ports.map((x) => String(x.port)) }]}
            yAxis={[{ tickMinStep: 1, min: 0 }]}
            series={[
              {
                data: metrics.open_ports.map((x) => x.hosts),
                label: t('analytics.columns.hosts'),
                color: theme.palette.info.main,
              },
            ]}
            hideLegend
          />
        </ChartCard>
      </Grid>
      <Grid size={{ xs: 12, md: 6 }}>
        <ChartCard
          testId="chart-leak-sources"
          title={t('analytics.charts.leakSources.title')}
          description={t('analytics.charts.leakSources.description')}
          isEmpty={metrics.leak_sources.length === 0}
          emptyText={t('analytics.charts.leakSources.empty')}
          table={{
            head: [t('analytics.columns.source'), t('analytics.columns.leaks')],
            rows: metrics.leak_sources.map((x) => [x.source, x.leaks]),
          }}
        >
          <BarChart
            height={HEIGHT}
            layout="horizontal"
            yAxis={[{ scaleType: 'band', data: metrics.leak_sources.map((x) => x.source), width: 130 }]}
            xAxis={[{ tickMinStep: 1, min: 0 }]}
            series={[
              {
                data: metrics.leak_sources.map((x) => x.leaks),
                label: t('analytics.columns.leaks'),
                color: theme.palette.warning.main,
              },
            ]}
            hideLegend
          />
        </ChartCard>
      </Grid>
    </Grid>
  );
}
