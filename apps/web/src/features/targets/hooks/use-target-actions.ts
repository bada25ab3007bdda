import type { TTarget, TTargetRef } from '@perimeter/contracts';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useNotify } from '../../../components/feedback/snackbar.tsx';
import { paths } from '../../../config/paths.ts';
import { apiErrorMessage } from '../../../lib/errors.ts';
import { useCreateScanMutation } from '../../new-scan/index.ts';
import { useStartScanMutation } from '../../scans/index.ts';
import { useDisableTargetMutation } from '../api/disable-target.ts';
import { useDisableVerificationMutation } from '../api/disable-verification.ts';
import { useEnableTargetMutation } from '../api/enable-target.ts';
import { useRecheckVerificationMutation } from '../api/recheck-verification.ts';
import { useReplaceTargetMutation } from '../api/replace-target.ts';

export type TTargetLike = Pick<TTarget, 'user_target_id' | 'target_type' | 'display_name'>;

const refOf = (t: TTargetLike): TTargetRef => ({
  target_type: t.target_type,
  user_target_id: t.user_target_id,
});

export function targetPath(t: Pick<TTarget, 'user_target_id' | 'target_type'>): string {
  return paths.targetDetail
    .replace(':targetType', t.target_type)
    .replace(':targetId', encodeURIComponent(t.user_target_id));
}

/** The Reports list of this target's scans. */
export function scansPath(t: Pick<TTarget, 'user_target_id' | 'target_type'>): string {
  const q = new URLSearchParams({ type: t.target_type, target: t.user_target_id });
  return `${paths.pastScans}?${q}`;
}

/** The actions of the targets screen: each tells the outcome in the snackbar. */
export function useTargetActions() {
  const { t } = useTranslation();
  const notify = useNotify();
  const navigate = useNavigate();
  const [check, checking] = useRecheckVerificationMutation();
  const [unverify, unverifying] = useDisableVerificationMutation();
  const [disable, disabling] = useDisableTargetMutation();
  const [enable, enabling] = useEnableTargetMutation();
  const [replace, replacing] = useReplaceTargetMutation();
  const [create, creating] = useCreateScanMutation();
  const [start, starting] = useStartScanMutation();

  const ok = (message: string) => notify({ message, alert: { color: 'success', variant: 'filled' } });
  const fail = (error: unknown) =>
    notify({ message: apiErrorMessage(error, t), alert: { color: 'error', variant: 'filled' } });

  async function run<T>(action: Promise<{ data?: T; error?: unknown }>, onDone: (data: T) => void) {
    const result = await action;
    if (result.error !== undefined || result.data === undefined) {
      fail(result.error);
      return null;
    }
    onDone(result.data);
    return result.data;
  }

  return {
    isBusy:
      checking.isLoading ||
      unverifying.isLoading ||
      disabling.isLoading ||
      enabling.isLoading ||
      replacing.isLoading ||
      creating.isLoading ||
      starting.isLoading,
    check: (x: TTargetLike) =>
      run(check(refOf(x)), (r) =>
        r.verified
          ? ok(t('targets.done.verified', { name: x.display_name }))
          : notify({
              message: t('targets.done.notVerified', { name: x.display_name, detail: r.detail }),
              alert: { color: 'warning', variant: 'filled' },
            }),
      ),
    disableVerification: (x: TTargetLike) =>
      run(unverify(refOf(x)), () => ok(t('targets.done.verificationDisabled', { name: x.display_name }))),
    disable: (x: TTargetLike) =>
      run(disable(refOf(x)), () => ok(t('targets.done.disabled', { name: x.display_name }))),
    enable: (x: TTargetLike) =>
      run(enable(refOf(x)), () => ok(t('targets.done.enabled', { name: x.display_name }))),
    replace: (x: TTargetLike, value: string) =>
      replace({ ...refOf(x), target: value }).then((result) => {
        if (result.error !== undefined || !result.data) return { error: result.error };
        ok(t('targets.done.replaced', { old: x.display_name, name: result.data.added.display_name }));
        navigate(targetPath(result.data.added));
        return { error: null };
      }),
    /** A full scan of the target, started at once; opens its page. */
    scan: async (x: TTargetLike) => {
      const scan = await run(create({ targets: [refOf(x)], scan_type: 'full' }), () => {});
      if (!scan) return;
      await run(start(scan.id), () => {});
      navigate(paths.scanDetail.replace(':scanId', encodeURIComponent(scan.id)));
    },
  };
}
