import CloseOutlined from '@mui/icons-material/CloseOutlined';
import { Alert, Fade, IconButton } from '@mui/material';
import {
  type CustomContentProps,
  closeSnackbar,
  enqueueSnackbar,
  type SnackbarAction,
  SnackbarContent,
  type SnackbarKey,
  SnackbarProvider,
} from 'notistack';
import { forwardRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { SNACKBAR_AUTO_HIDE_MS, SNACKBAR_MAX_STACK } from '../../config/layout.ts';

export type TAlertColor = 'primary' | 'secondary' | 'success' | 'error' | 'warning' | 'info';
type TAlertVariant = 'filled' | 'outlined' | 'standard';

declare module 'notistack' {
  interface VariantOverrides {
    alert: { color: TAlertColor; alertVariant: TAlertVariant; closable: boolean };
  }
}

/** What a notification shows (spec §2 "Shell"): plain or alert (default: filled primary), closable. */
export type TNotification = {
  message: ReactNode;
  variant?: 'default' | 'alert';
  alert?: { color: TAlertColor; variant: TAlertVariant };
  /** Extra controls before the close button, e.g. an Undo. */
  action?: SnackbarAction;
  close?: boolean;
};

function CloseButton({ id }: { id: SnackbarKey }) {
  const { t } = useTranslation();
  return (
    <IconButton size="small" color="inherit" aria-label={t('common.close')} onClick={() => closeSnackbar(id)}>
      <CloseOutlined fontSize="small" />
    </IconButton>
  );
}

const actionOf = (action: SnackbarAction | undefined, id: SnackbarKey) =>
  typeof action === 'function' ? action(id) : action;

type TAlertProps = CustomContentProps & {
  color: TAlertColor;
  alertVariant: TAlertVariant;
  closable: boolean;
};

/** The 'alert' variant: an MUI Alert with the notification's controls. */
const AlertSnackbar = forwardRef<HTMLDivElement, TAlertProps>(function AlertSnackbar(
  { id, message, color, alertVariant, closable, action },
  ref,
) {
  const themed = color === 'primary' || color === 'secondary';
  return (
    <SnackbarContent ref={ref} role="alert">
      <Alert
        severity={themed ? 'info' : color}
        variant={alertVariant}
        sx={{
          width: '100%',
          ...(themed && alertVariant === 'filled'
            ? { bgcolor: `${color}.main`, color: `${color}.contrastText` }
            : {}),
        }}
        action={
          <>
            {actionOf(action, id)}
            {closable && <CloseButton id={id} />}
          </>
        }
      >
        {message}
      </Alert>
    </SnackbarContent>
  );
});

/** notistack with the defaults of spec §9: top centre, 6 s, a stack of 10, fading in. */
export function NotificationProvider({ children }: { children: ReactNode }) {
  return (
    <SnackbarProvider
      maxSnack={SNACKBAR_MAX_STACK}
      autoHideDuration={SNACKBAR_AUTO_HIDE_MS}
      anchorOrigin={{ vertical: 'top', horizontal: 'center' }}
      TransitionComponent={Fade}
      Components={{ alert: AlertSnackbar }}
    >
      {children}
    </SnackbarProvider>
  );
}

/** Shows one notification; returns its key. */
export function notify({
  message,
  variant = 'alert',
  alert = { color: 'primary', variant: 'filled' },
  action,
  close = true,
}: TNotification): SnackbarKey {
  if (variant === 'alert')
    return enqueueSnackbar(message, {
      variant: 'alert',
      color: alert.color,
      alertVariant: alert.variant,
      closable: close,
      action,
    });
  return enqueueSnackbar(message, {
    variant: 'default',
    action: (id) => (
      <>
        {actionOf(action, id)}
        {close && <CloseButton id={id} />}
      </>
    ),
  });
}

/** The one snackbar hook: `notify({ message, alert: { color: 'success', variant: 'filled' } })`. */
export function useNotify() {
  return notify;
}
