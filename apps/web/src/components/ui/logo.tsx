import { Box, Typography } from '@mui/material';
import { Link } from 'react-router';
import { menuActions } from '../../layout/menu-slice.ts';
import { useAppDispatch } from '../../store/index.ts';

export function LogoMark({ size = 32 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="7" fill="currentColor" />
      <path
        d="M16 5l9 4v6c0 6-4 10-9 12-5-2-9-6-9-12V9z"
        fill="none"
        stroke="#fff"
        strokeWidth="2.4"
        strokeLinejoin="round"
      />
      <circle cx="16" cy="15" r="3" fill="#fff" />
    </svg>
  );
}

/** The logo links to / and clears the open menu item (spec §2 "Shell"). */
export function Logo({ showText = true }: { showText?: boolean }) {
  const dispatch = useAppDispatch();
  return (
    <Box
      component={Link}
      to="/"
      aria-label="Perimeter"
      onClick={() => dispatch(menuActions.activeItem(null))}
      sx={{
        display: 'inline-flex',
        alignItems: 'center',
        gap: 1,
        color: 'primary.main',
        textDecoration: 'none',
      }}
    >
      <LogoMark />
      {showText && (
        <Typography component="span" variant="h3" sx={{ color: 'text.primary', letterSpacing: 0.3 }}>
          Perimeter
        </Typography>
      )}
    </Box>
  );
}
