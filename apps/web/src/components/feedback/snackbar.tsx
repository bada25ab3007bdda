import CloseOutlined from '@mui/icons-material/CloseOutlined';
import { Alert, Button, Fade, Grow, IconButton, Slide, type SlideProps } from '@mui/material';
import {
  type CustomContentProps,
  closeSnackbar as closeNotistack,
  enqueueSnackbar,
  SnackbarContent,
  SnackbarProvider,
} from 'notistack';
import { forwardRef, type ReactNode, useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { SNACKBAR_AUTO_HIDE_MS } from '../../config/layout.ts';
import { useAppDispatch, useAppSelector } from '../../store/index.ts';
import {
  closeSnackbar,
  openSnackbar,
  type TAlertColor,
  type TOpenSnackbar,
  type TTransition,
} from './snackbar-slice.ts';

declare module 'notistack' {
  interface VariantOverrides {
    alert: { color: TAlertColor; alertVariant: 'filled' | 'outlined' | 'standard'; closable: boolean };
  }
}

const SlideLeft = forwardRef<unknown, SlideProps>(function SlideLeft(props, ref) {
  return <Slide {...props} ref={ref} direction="left" />;
});
const SlideUp = forwardRef<unknown, SlideProps>(function SlideUp(props, ref) {
  return <Slide {...props} ref={ref} direction="up" />;
});
const SlideRight = forwardRef<unknown, SlideProps>(function SlideRight(props, ref) {
  return <Slide {...props} ref={ref} direction="right" />;
});
const SlideDown = forwardRef<unknown, SlideProps>(function SlideDown(props, ref) {
  return <Slide {...props} ref={ref} direction="down" />;
});

const TRANSITIONS = {
  Fade,
  Grow,
  SlideLeft,
  SlideUp,
  SlideRight,
  SlideDown,
} satisfies Record<TTransition, unknown>;

type TAlertProps = CustomContentProps & {
  color: TAlertColor;
  alertVariant: 'filled' | 'outlined' | 'standard';
  closable: boolean;
};

/** The 'alert' variant: an MUI Alert (filled primary by default) with a close control. */
const AlertSnackbar = forwardRef<HTMLDivElement, TAlertProps>(function AlertSnackbar(
  { id, message, color, alertVariant, closable, action },
  ref,
) {
  const { t } = useTranslation();
  const severity = color === 'primary' || color === 'secondary' ? 'info' : color;
  return (
    <SnackbarContent ref={ref} role="alert">
      <Alert
        severity={severity}
        variant={alertVariant}
        sx={{
          width: '100%',
          ...((color === 'primary' || color === 'secondary') && alertVariant === 'filled'
            ? { bgcolor: `${color}.main`, color: `${color}.contrastText` }
            : {}),
        }}
        action={
          <>
            {typeof action === 'function' ? action(id) : action}
            {closable && (
              <IconButton
                size="small"
                color="inherit"
                aria-label={t('common.close')}
                onClick={() => closeNotistack(id)}
              >
                <CloseOutlined fontSize="small" />
              </IconButton>
            )}
          </>
        }
      >
        {message}
      </Alert>
    </SnackbarContent>
  );
});

/** Mirrors the notification slice into notistack (6 s auto-hide, stack of maxStack). */
function SnackbarBridge() {
  const { t } = useTranslation();
  const dispatch = useAppDispatch();
  const s = useAppSelector((state) => state.snackbar);
  const lastAction = useRef(s.action);

  useEffect(() => {
    if (!s.open || lastAction.current === s.action) return;
    lastAction.current = s.action;
    const undo = s.actionButton ? (
      <Button size="small" color="inherit" onClick={() => dispatch(closeSnackbar())}>
        {t('common.undo')}
      </Button>
    ) : undefined;
    const common = {
      anchorOrigin: s.anchorOrigin,
      TransitionComponent: TRANSITIONS[s.transition],
      autoHideDuration: SNACKBAR_AUTO_HIDE_MS,
      onClose: () => dispatch(closeSnackbar()),
    };
    if (s.variant === 'alert') {
      enqueueSnackbar(s.message, {
        ...common,
        variant: 'alert',
        color: s.alert.color,
        alertVariant: s.alert.variant,
        closable: s.close,
        action: undo,
      });
    } else {
      enqueueSnackbar(s.message, {
        ...common,
        variant: 'default',
        action: (key) => (
          <>
            {undo}
            {s.close && (
              <IconButton
                size="small"
                color="inherit"
                aria-label={t('common.close')}
                onClick={() => closeNotistack(key)}
              >
                <CloseOutlined fontSize="small" />
              </IconButton>
            )}
          </>
        ),
      });
    }
  }, [s, dispatch, t]);
  return null;
}

export function NotificationProvider({ children }: { children: ReactNode }) {
  const { maxStack, dense, iconVariant } = useAppSelector((state) => state.snackbar);
  return (
    <SnackbarProvider
      maxSnack={maxStack}
      dense={dense}
      hideIconVariant={iconVariant === 'hide'}
      autoHideDuration={SNACKBAR_AUTO_HIDE_MS}
      anchorOrigin={{ vertical: 'top', horizontal: 'center' }}
      Components={{ alert: AlertSnackbar }}
    >
      <SnackbarBridge />
      {children}
    </SnackbarProvider>
  );
}

/** The one snackbar hook: `notify({ message, alert: { color: 'success', variant: 'filled' } })`. */
export function useNotify() {
  const dispatch = useAppDispatch();
  return (options: TOpenSnackbar) => dispatch(openSnackbar(options));
}
