import {
  Card,
  CardContent,
  CardHeader,
  FormControlLabel,
  FormGroup,
  Switch,
  Typography,
} from '@mui/material';
import type { TNotificationPrefs } from '@perimeter/contracts';
import { useTranslation } from 'react-i18next';
import { useNotify } from '../../../components/feedback/snackbar.tsx';
import { apiErrorMessage } from '../../../lib/errors.ts';
import { useAuth, useUpdateUserMutation } from '../../auth/index.ts';

const PREFS: (keyof TNotificationPrefs)[] = ['scan_finished', 'new_critical_high'];

/** E-mail preferences, stored on the user. */
export function NotificationSettings() {
  const { t } = useTranslation();
  const auth = useAuth();
  const notify = useNotify();
  const [update, { isLoading }] = useUpdateUserMutation();
  const prefs = auth.user?.notifications;

  return (
    <Card>
      <CardHeader
        title={t('account.notificationsTitle')}
        slotProps={{ title: { component: 'h2', variant: 'h3' } }}
      />
      <CardContent>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
          {t('account.notificationsText', { email: auth.user?.email ?? '' })}
        </Typography>
        <FormGroup>
          {PREFS.map((key) => (
            <FormControlLabel
              key={key}
              control={
                <Switch
                  checked={prefs?.[key] ?? false}
                  disabled={isLoading}
                  onChange={async (e) => {
                    try {
                      const user = await update({ notifications: { [key]: e.target.checked } }).unwrap();
                      auth.setUser(user);
                      notify({ message: t('account.saved'), alert: { color: 'success', variant: 'filled' } });
                    } catch (err) {
                      notify({
                        message: apiErrorMessage(err, t),
                        alert: { color: 'error', variant: 'filled' },
                      });
                    }
                  }}
                />
              }
              label={t(`account.notify.${key}`)}
            />
          ))}
        </FormGroup>
      </CardContent>
    </Card>
  );
}
