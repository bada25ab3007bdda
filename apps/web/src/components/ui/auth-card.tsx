import { Box, Card, CardContent, Typography } from '@mui/material';
import { type ReactNode, useEffect } from 'react';

export function AuthCard({
  title,
  subtitle,
  children,
}: {
  title: string;
  subtitle?: ReactNode;
  children: ReactNode;
}) {
  useEffect(() => {
    document.title = `${title} · Perimeter`;
  }, [title]);
  return (
    <Card sx={{ boxShadow: 3 }}>
      <CardContent sx={{ p: { xs: 3, sm: 4 } }}>
        <Box sx={{ mb: 3 }}>
          <Typography variant="h2" component="h1" sx={{ mb: 1 }}>
            {title}
          </Typography>
          {subtitle && (
            <Typography variant="body1" color="text.secondary">
              {subtitle}
            </Typography>
          )}
        </Box>
        {children}
      </CardContent>
    </Card>
  );
}
