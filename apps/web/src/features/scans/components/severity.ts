import type { ChipProps } from '@mui/material';
import type { TSeverity } from '@perimeter/contracts';

/** Chip colours per severity group, most severe first. */
export const SEVERITY_COLOR: Record<TSeverity, ChipProps['color']> = {
  critical: 'error',
  high: 'warning',
  medium: 'secondary',
  low: 'info',
  informational: 'default',
  unknown: 'default',
};
