import { Alert, AlertTitle, Box, Typography } from '@mui/material';
import type { TScanPartial } from '@perimeter/contracts';
import { useTranslation } from 'react-i18next';
import { stageLabel } from './scan-stages-list.ts';

/**
 * Honest completion: a scan that ended `done` without everything planned having run says which
 * stages were cut short or skipped work, and why.
 */
export function ScanPartialNotice({ partial }: { partial: TScanPartial | null | undefined }) {
  const { t } = useTranslation();
  if (!partial || partial.stages.length === 0) return null;
  return (
    <Alert severity="warning" sx={{ mt: 2 }} data-testid="scan-partial">
      <AlertTitle>{t('scans.partial.title')}</AlertTitle>
      <Typography variant="body2" sx={{ mb: 1 }}>
        {t('scans.partial.text')}
      </Typography>
      {partial.stages.map((s) => (
        <Box key={s.stage} sx={{ mb: 0.5 }} data-testid={`partial-${s.stage}`}>
          <Typography variant="body2" component="div" sx={{ fontWeight: 600 }}>
            {stageLabel(t, s.stage)}: {t(`scans.partial.status.${s.status}`, { defaultValue: s.status })}
            {s.planned !== null
              ? ` · ${t('scans.partial.ran', { ran: s.ran ?? 0, planned: s.planned })}`
              : ''}
            {s.reason ? ` (${s.reason})` : ''}
          </Typography>
          {s.skipped.map((k) => (
            <Typography key={k.reason} variant="body2" component="div" sx={{ ps: 2 }}>
              {t('scans.partial.skipped', { count: k.count, reason: k.reason })}
              {k.examples.length > 0 && (
                <>
                  {' — '}
                  <bdi>{t('scans.partial.examples', { examples: k.examples.join(', ') })}</bdi>
                </>
              )}
            </Typography>
          ))}
        </Box>
      ))}
    </Alert>
  );
}
