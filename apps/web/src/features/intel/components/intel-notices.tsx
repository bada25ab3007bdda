import { Alert, AlertTitle, Chip, Typography } from '@mui/material';
import type { TCveIntel, TReportNotice } from '@perimeter/contracts';
import { useTranslation } from 'react-i18next';
import { useGetIntelDatabaseQuery } from '../api/get-intel-database.ts';

/**
 * The CVE tab's warning when the CVE database is empty or stale: an empty tab must never look
 * like "no vulnerabilities". Says how an operator fixes it.
 */
export function IntelDatabaseNotice() {
  const { t } = useTranslation();
  const { data } = useGetIntelDatabaseQuery();
  if (data?.state !== 'empty' && data?.state !== 'stale') return null;
  const day = data.last_success_at ? data.last_success_at.slice(0, 10) : t('intel.database.never');
  return (
    <Alert severity="warning" sx={{ mb: 2 }} data-testid="intel-database-notice">
      <AlertTitle>{t(`intel.database.${data.state}Title`)}</AlertTitle>
      <Typography variant="body2">
        {t(`intel.database.${data.state}Text`, {
          records: data.cve_records,
          day,
          days: data.stale_after_days,
        })}
      </Typography>
      <Typography variant="body2" sx={{ mt: 1 }}>
        {t(data.sync_scheduled ? 'intel.database.fixScheduled' : 'intel.database.fixManual')}
      </Typography>
    </Alert>
  );
}

/** What a scan's counts cannot show (recorded when it ran): leak check not configured, CVE database empty or stale. */
export function ReportNotices({ notices }: { notices: TReportNotice[] | undefined }) {
  const { t } = useTranslation();
  if (!notices?.length) return null;
  return (
    <>
      {notices.map((n) => (
        <Alert key={n} severity="warning" sx={{ mb: 2 }} data-testid={`notice-${n}`}>
          {t(`intel.notices.${n}`)}
        </Alert>
      ))}
    </>
  );
}

/** "Known exploited" chip of a CVE in CISA KEV (ransomware use said in its title). */
export function KevChip({ intel }: { intel: Pick<TCveIntel, 'kev' | 'kev_ransomware'> }) {
  const { t } = useTranslation();
  if (!intel.kev) return null;
  return (
    <Chip
      size="small"
      color="error"
      label={t('intel.kev.chip')}
      title={intel.kev_ransomware ? t('intel.kev.ransomware') : t('intel.kev.title')}
      sx={{ ml: 0.5 }}
    />
  );
}

/** EPSS as a percentage, "—" without a score. */
export function formatEpss(score: number | null, language: string): string {
  if (score === null) return '—';
  return new Intl.NumberFormat(language, { style: 'percent', maximumFractionDigits: 1 }).format(score);
}
