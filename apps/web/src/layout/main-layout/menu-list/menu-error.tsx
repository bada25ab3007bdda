import { Typography } from '@mui/material';

/** The renderer fails loudly: a visible text names what is wrong with the menu data. */
export function MenuError({ text }: { text: string }) {
  return (
    <Typography variant="h6" color="error" align="center" role="alert" sx={{ py: 1 }}>
      {text}
    </Typography>
  );
}

export const MENU_ERRORS = {
  navigationGroup: 'Fix - Navigation Group',
  groupChildren: 'Fix - Group Collapse or Items',
  collapseChildren: 'Fix - Collapse or Item',
  items: 'Menu Items Error',
} as const;
