import LogoutOutlined from '@mui/icons-material/LogoutOutlined';
import PersonOutline from '@mui/icons-material/PersonOutlineOutlined';
import {
  Avatar,
  Box,
  Divider,
  IconButton,
  ListItemIcon,
  ListItemText,
  Menu,
  MenuItem,
  Tooltip,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { visuallyHidden } from '../../../components/ui/visually-hidden.ts';
import { paths } from '../../../config/paths.ts';
import { useAuth } from '../../../features/auth/auth-provider.tsx';

export function ProfileMenu() {
  const { t } = useTranslation();
  const { user, logout } = useAuth();
  const navigate = useNavigate();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const initials = `${user?.first_name?.[0] ?? ''}${user?.last_name?.[0] ?? ''}`.toUpperCase() || '?';

  return (
    <>
      <Tooltip title={t('header.profile')} describeChild>
        <IconButton aria-haspopup="menu" onClick={(e) => setAnchor(e.currentTarget)} sx={{ p: 0.5 }}>
          {/* The accessible name starts with the visible initials (WCAG 2.5.3 "label in name"). */}
          <Avatar
            sx={{
              width: 36,
              height: 36,
              bgcolor: 'primary.main',
              color: 'primary.contrastText',
              fontSize: 15,
            }}
          >
            {initials}
          </Avatar>
          <Box component="span" sx={visuallyHidden}>
            {t('header.profile')}
          </Box>
        </IconButton>
      </Tooltip>
      <Menu
        anchorEl={anchor}
        open={!!anchor}
        onClose={() => setAnchor(null)}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
        transformOrigin={{ vertical: 'top', horizontal: 'right' }}
        slotProps={{ paper: { sx: { minWidth: 240 } } }}
      >
        <Box sx={{ px: 2, py: 1.5 }}>
          <Typography variant="h5" data-testid="profile-name">
            {user?.first_name} {user?.last_name}
          </Typography>
          <Typography variant="body2" color="text.secondary">
            {user?.company}
          </Typography>
        </Box>
        <Divider />
        <MenuItem
          onClick={() => {
            setAnchor(null);
            void navigate(paths.accountDetails);
          }}
        >
          <ListItemIcon>
            <PersonOutline fontSize="small" />
          </ListItemIcon>
          <ListItemText primary={t('header.viewProfile')} />
        </MenuItem>
        <MenuItem
          onClick={() => {
            setAnchor(null);
            logout();
            void navigate(paths.login, { replace: true });
          }}
        >
          <ListItemIcon>
            <LogoutOutlined fontSize="small" />
          </ListItemIcon>
          <ListItemText primary={t('header.logout')} />
        </MenuItem>
      </Menu>
    </>
  );
}
