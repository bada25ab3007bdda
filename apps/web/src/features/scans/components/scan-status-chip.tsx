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

export function ScanStatusChip({ status }: { status: TScanStatus }) {
  const { t } = useTranslation();
  return (
    <Chip
      size="small"
      color={COLOR[status]}
      variant={status === 'created' ? 'outlined' : 'filled'}
      label={t(`scans.status.${status}`)}
      data-testid={`status-${status}`}
    />
  );
}
