import type { ChipProps } from '@mui/material';
import type { TSeverity } from '@perimeter/contracts';

/** Chip colours per severity group (theme palette, so both themes read), most severe first: one map for every severity chip. */
export const SEVERITY_COLOR: Record<TSeverity, ChipProps['color']> = {
  critical: 'error',
  high: 'warning',
  medium: 'secondary',
  low: 'info',
  informational: 'default',
  unknown: 'default',
};
