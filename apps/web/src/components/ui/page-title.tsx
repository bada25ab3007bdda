import { Typography } from '@mui/material';
import { useEffect } from 'react';

export function PageTitle({ title }: { title: string }) {
  useEffect(() => {
    document.title = `${title} · Perimeter`;
  }, [title]);
  return (
    <Typography variant="h1" sx={{ mb: 3 }}>
      {title}
    </Typography>
  );
}
