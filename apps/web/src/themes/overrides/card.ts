import type { Components, Theme } from '@mui/material/styles';

export const MuiCard: Components<Theme>['MuiCard'] = {
  defaultProps: { variant: 'outlined' },
  styleOverrides: { root: { borderRadius: 12 } },
};
