import type { Components, Theme } from '@mui/material/styles';

export const MuiListItemButton: Components<Theme>['MuiListItemButton'] = {
  styleOverrides: {
    root: ({ theme }) => ({
      borderRadius: 8,
      marginBottom: 2,
      '&.Mui-selected': {
        color: theme.palette.primary.main,
        backgroundColor: theme.palette.action.selected,
        '& .MuiListItemIcon-root': { color: theme.palette.primary.main },
      },
    }),
  },
};
