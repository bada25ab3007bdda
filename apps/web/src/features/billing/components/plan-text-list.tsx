import { List, ListItem, ListItemIcon, ListItemText } from '@mui/material';
import type { ReactNode } from 'react';

/** A plan's features or limitations, one line each, with an optional mark before each. */
export function PlanTextList({ items, mark }: { items: string[]; mark?: ReactNode }) {
  return (
    <List dense>
      {items.map((x) => (
        <ListItem key={x} disableGutters>
          {mark && <ListItemIcon sx={{ minWidth: 28 }}>{mark}</ListItemIcon>}
          <ListItemText primary={x} />
        </ListItem>
      ))}
    </List>
  );
}
