import { Chip, type ChipProps } from '@mui/material';
import type { TExtendedTarget } from '@perimeter/contracts';
import { useTranslation } from 'react-i18next';

const COLOR: Record<TExtendedTarget['status'], ChipProps['color']> = {
  verified: 'success',
  unverified: 'warning',
  disabled: 'default',
};

export function TargetStatusChip({ status }: { status: TExtendedTarget['status'] }) {
  const { t } = useTranslation();
  return (
    <Chip
      size="small"
      color={COLOR[status]}
      variant={status === 'disabled' ? 'outlined' : 'filled'}
      label={t(`targets.status.${status}`)}
      data-testid={`target-status-${status}`}
    />
  );
}

/** 100 = nothing open; the colour follows the same bands as the dashboard's risk. */
export function scoreColor(score: number): ChipProps['color'] {
  if (score >= 90) return 'success';
  if (score >= 60) return 'warning';
  return 'error';
}
