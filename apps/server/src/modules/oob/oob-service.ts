import type { TReportNotice } from '@perimeter/contracts';
import type { OobProvider } from '@perimeter/engine';
import type { AppContext } from '../../server/context.ts';
import { PgOobProvider } from './oob-provider.ts';

/**
 * What a scan run passes the engine for out-of-band templates: a provider under a freshly
 * registered correlation when PERIMETER_OOB_DOMAIN is set and the run executes templates; nothing
 * otherwise (the engine then skips them: "out-of-band checks not configured").
 */
export async function oobScanConfig(
  ctx: AppContext,
  scan: { id: string; userId: string; subclasses: string[] },
): Promise<{ oob?: { provider: OobProvider; waitMs?: number } }> {
  const env = ctx.config.env;
  if (!env.PERIMETER_OOB_DOMAIN || !scan.subclasses.includes('exploit_scanner')) return {};
  const provider = await PgOobProvider.register(ctx.db, {
    domain: env.PERIMETER_OOB_DOMAIN,
    scanId: scan.id,
    userId: scan.userId,
    retentionHours: env.PERIMETER_OOB_RETENTION_HOURS,
  });
  return {
    oob: {
      provider,
      ...(env.PERIMETER_OOB_WAIT_MS !== undefined ? { waitMs: env.PERIMETER_OOB_WAIT_MS } : {}),
    },
  };
}

/** The scan summary's notice when template checks run without an interaction server. */
export function oobNotices(ctx: AppContext, subclasses: readonly string[]): TReportNotice[] {
  return subclasses.includes('exploit_scanner') && !ctx.config.env.PERIMETER_OOB_DOMAIN
    ? ['oob_not_configured']
    : [];
}
