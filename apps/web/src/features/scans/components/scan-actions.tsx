import {
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  Stack,
} from '@mui/material';
import type { TScan } from '@perimeter/contracts';
import { type ReactNode, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNotify } from '../../../components/feedback/snackbar.tsx';
import { readApiError } from '../../../lib/api-client.ts';
import { apiErrorMessage } from '../../../lib/errors.ts';
import { useCancelScanMutation } from '../api/cancel-scan.ts';
import { useStartScanMutation } from '../api/start-scan.ts';

export const isMoving = (s: Pick<TScan, 'status'>) => s.status === 'running' || s.status === 'pending';

/** Start a created scan, cancel a pending or running one; `children` adds more actions after them. */
export function ScanActions({
  scan,
  size = 'small',
  children,
}: {
  scan: TScan;
  size?: 'small' | 'medium';
  children?: ReactNode;
}) {
  const { t } = useTranslation();
  const notify = useNotify();
  const [start, startState] = useStartScanMutation();
  const [cancel, cancelState] = useCancelScanMutation();
  const [confirming, setConfirming] = useState(false);
  const titleId = useId();
  const run = async (action: 'start' | 'cancel') => {
    try {
      await (action === 'start' ? start(scan.id) : cancel(scan.id)).unwrap();
      notify({
        message: t(action === 'start' ? 'scans.started' : 'scans.canceled'),
        alert: { color: 'success', variant: 'filled' },
      });
    } catch (e) {
      // The generic message of the code, then the server's reason (what to fix: verification, plan…).
      const message = apiErrorMessage(e, t);
      const detail = readApiError(e)?.detail;
      notify({
        message: detail && detail !== message ? `${message} ${detail}` : message,
        alert: { color: 'error', variant: 'filled' },
      });
    }
  };
  return (
    <Stack direction="row" sx={{ justifyContent: 'flex-end', flexWrap: 'wrap', gap: 1 }}>
      {scan.status === 'created' && (
        <Button
          size={size}
          variant="contained"
          disabled={startState.isLoading}
          onClick={() => void run('start')}
        >
          {t('scans.start')}
        </Button>
      )}
      {isMoving(scan) && (
        <Button
          size={size}
          color="error"
          variant="outlined"
          disabled={cancelState.isLoading}
          onClick={() => setConfirming(true)}
        >
          {t('scans.cancel')}
        </Button>
      )}
      {children}
      {/* Cancelling cannot be undone: the partial results stay, the scan does not resume. */}
      <Dialog open={confirming} onClose={() => setConfirming(false)} aria-labelledby={titleId}>
        <DialogTitle id={titleId}>{t('scans.cancelConfirm.title')}</DialogTitle>
        <DialogContent>
          <DialogContentText>{t('scans.cancelConfirm.text')}</DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setConfirming(false)} autoFocus>
            {t('scans.cancelConfirm.keep')}
          </Button>
          <Button
            color="error"
            variant="contained"
            onClick={() => {
              setConfirming(false);
              void run('cancel');
            }}
          >
            {t('scans.cancelConfirm.confirm')}
          </Button>
        </DialogActions>
      </Dialog>
    </Stack>
  );
}
