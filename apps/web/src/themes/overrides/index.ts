import type { Components, Theme } from '@mui/material/styles';
import { MuiButton } from './button.ts';
import { MuiCard } from './card.ts';
import { MuiListItemButton } from './list-item-button.ts';

export const componentOverrides: Components<Theme> = {
  MuiButton,
  MuiCard,
  MuiListItemButton,
  MuiTooltip: { defaultProps: { arrow: true } },
  MuiTextField: { defaultProps: { fullWidth: true } },
};
