import { Chip, type ChipProps } from '@mui/material';
import type { TScanStatus } from '@perimeter/contracts';
import { useTranslation } from 'react-i18next';

const COLOR: Record<TScanStatus, ChipProps['color']> = {
  running: 'info',
  pending: 'secondary',
  done: 'success',
  created: 'default',
  canceled: 'warning',
};

/** The scan's status; a `done` scan that did not run everything it planned reads "done (partial)". */
export function ScanStatusChip({ status, isPartial = false }: { status: TScanStatus; isPartial?: boolean }) {
  const { t } = useTranslation();
  const partial = isPartial && status === 'done';
  return (
    <Chip
      size="small"
      color={partial ? 'warning' : COLOR[status]}
      variant={status === 'created' ? 'outlined' : 'filled'}
      label={partial ? t('scans.partial.chip') : t(`scans.status.${status}`)}
      data-testid={`status-${status}`}
      data-partial={partial || undefined}
    />
  );
}
