import { RECOVERY_CODE_COUNT } from '@perimeter/contracts';
import { LeakCipher } from '@perimeter/engine';
import { decryptSecret, encryptSecret, randomToken } from '../../lib/crypto.ts';
import type { AppContext } from '../../server/context.ts';
import {
  hashPassword,
  hashRecoveryCode,
  newRecoveryCodes,
  newTotpSecret,
  totpFor,
} from '../auth/auth-fns.ts';
import * as authRepo from '../auth/auth-repo.ts';
import { assignPlan } from '../billing/billing-service.ts';
import { addLeaks, type LeakEntry } from '../scans/scans-intel-repo.ts';
import { importCveSources, intelStatus } from '../scans/scans-intel-service.ts';
import { verificationValue } from '../targets/targets-fns.ts';
import * as targetsRepo from '../targets/targets-repo.ts';
import { addTargets, checkVerification } from '../targets/targets-service.ts';

/** What the demo needs of the running lab (the lab package itself stays out of the server). */
export interface DemoLab {
  /** The lab domain the demo account owns, e.g. acme.test. */
  domain: string;
  publishTxt(name: string, values: string[]): void;
  cveFeedPath: string;
  leakCorpus: LeakEntry[];
}

export interface DemoAccount {
  email: string;
  password: string;
  /** Base32 TOTP secret and its otpauth:// URL, for an authenticator app. */
  totpSecret: string;
  otpauthUrl: string;
  /** One-time codes for /verify/two-factor/recovery; new ones on every run. */
  recoveryCodes: string[];
  domain: string;
  targetId: string;
}

export const DEMO_EMAIL = 'demo@acme.test';

/**
 * The demo account (onboarded, two-factor on, Business plan) with the lab domain added and
 * verified through the real DNS check, and the lab's CVE feed and leak corpus loaded. Idempotent:
 * a second run keeps the account, its target and its TOTP secret, and issues a new password and
 * new recovery codes (only their hashes are stored, so the old ones cannot be printed again).
 */
export async function seedDemo(ctx: AppContext, lab: DemoLab): Promise<DemoAccount> {
  const password = `demo-${randomToken(9)}`;
  const recoveryCodes = newRecoveryCodes(RECOVERY_CODE_COUNT);
  const key = ctx.config.secrets.encryptionKey;
  let user = await authRepo.findUserByEmail(ctx.db, DEMO_EMAIL);
  let totpSecret: string;
  if (user?.totpSecretEnc) {
    totpSecret = decryptSecret(user.totpSecretEnc, key);
    user = await authRepo.updateUser(ctx.db, user.id, { passwordHash: await hashPassword(password) });
  } else {
    totpSecret = newTotpSecret();
    user = await authRepo.insertUser(ctx.db, {
      email: DEMO_EMAIL,
      passwordHash: await hashPassword(password),
      firstName: 'Demo',
      lastName: 'Owner',
      company: 'Acme (lab)',
      tz: 'UTC',
      language: 'en',
      emailVerified: true,
      agreementAcceptedAt: new Date(),
      totpSecretEnc: encryptSecret(totpSecret, key),
      totpEnabled: true,
    });
    if (!user) throw new Error(`could not create ${DEMO_EMAIL}`);
  }
  const userId = user.id;
  await authRepo.replaceRecoveryCodes(ctx.db, userId, recoveryCodes.map(hashRecoveryCode));
  await assignPlan(ctx, DEMO_EMAIL, 'business');

  const held = await targetsRepo.findLiveByValues(ctx.db, userId, [
    { targetType: 'domain', value: lab.domain },
  ]);
  let target = held.find((t) => t.targetType === 'domain');
  if (!target) {
    const { added } = await addTargets(ctx, userId, { targets: [lab.domain] });
    target = await targetsRepo.getTarget(ctx.db, userId, added[0]?.user_target_id ?? '');
    if (!target) throw new Error(`could not add ${lab.domain}`);
  }
  // The lab keeps its records in memory: publish the proof on every run, then check it for real.
  lab.publishTxt(`_perimeter.${lab.domain}`, [verificationValue(target.verificationToken)]);
  const check = await checkVerification(ctx, userId, { target_type: 'domain', user_target_id: target.id });
  if (!check.verified) throw new Error(`the lab domain could not be verified: ${check.detail}`);

  const intel = await intelStatus(ctx);
  if (intel.cves === 0) await importCveSources(ctx, [lab.cveFeedPath], () => {});
  if (intel.leaks === 0) await addLeaks(ctx.db, new LeakCipher(key), lab.leakCorpus);

  return {
    email: DEMO_EMAIL,
    password,
    totpSecret,
    otpauthUrl: totpFor(totpSecret, DEMO_EMAIL).toString(),
    recoveryCodes,
    domain: lab.domain,
    targetId: target.id,
  };
}
