import { useTheme } from '@mui/material';
import { LineChart } from '@mui/x-charts/LineChart';
import type { TDashboardInfo } from '@perimeter/contracts';
import { useTranslation } from 'react-i18next';

/** New vs fixed findings per day (last 30 days); its own chunk, loaded after the cards. */
export function NewVsFixedChart({ series }: { series: TDashboardInfo['new_vs_fixed'] }) {
  const { t } = useTranslation();
  const theme = useTheme();
  return (
    <div data-testid="new-vs-fixed">
      <LineChart
        height={260}
        xAxis={[{ scaleType: 'point', data: series.map((p) => p.date.slice(5)) }]}
        yAxis={[{ tickMinStep: 1, min: 0 }]}
        series={[
          {
            data: series.map((p) => p.new),
            label: t('dashboard.chart.new'),
            curve: 'linear',
            color: theme.palette.error.main,
          },
          {
            data: series.map((p) => p.fixed),
            label: t('dashboard.chart.fixed'),
            curve: 'linear',
            color: theme.palette.success.main,
          },
        ]}
      />
    </div>
  );
}
