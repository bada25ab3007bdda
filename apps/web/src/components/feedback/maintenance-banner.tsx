import { Alert } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { useGetMaintenanceQuery } from '../../features/system/api/get-maintenance.ts';
import { ServerHtml } from './server-html.tsx';

/** Shown only when maintenance mode is on and a message exists; the operator's HTML is sanitized. */
export function MaintenanceBanner() {
  const { t } = useTranslation();
  const { data } = useGetMaintenanceQuery(undefined, { pollingInterval: 60_000 });
  const message = data?.maintenance_mode ? data.message : null;

  if (!message) return null;
  return (
    <Alert severity="warning" variant="filled" sx={{ borderRadius: 0 }} aria-label={t('maintenance.label')}>
      <ServerHtml html={message} testId="maintenance-message" />
    </Alert>
  );
}
