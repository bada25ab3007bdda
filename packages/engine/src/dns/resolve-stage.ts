import { getDomain } from 'tldts';
import { isWildcardAnswer } from '../discovery/wildcard.ts';
import { mapConcurrent } from '../lib/async.ts';
import type { ScanEvent } from '../pipeline/events.ts';
import { log, ProgressTracker } from '../pipeline/progress.ts';
import type { Stage, StageContext } from '../pipeline/stage.ts';
import { networkAddresses } from '../scope/targets.ts';
import { DnsError, type HostResolution } from './dns-resolver.ts';

const STAGE = 'dns';

function registrable(name: string): string {
  return getDomain(name, { allowPrivateDomains: true }) ?? name;
}

/** Records an address refused by the scope policy (never silently). */
export function refuse(
  ctx: StageContext,
  stage: string,
  address: string,
  via: string,
  reason: string,
  host?: string,
): ScanEvent {
  ctx.inventory.refused.push(host ? { address, host, via, reason } : { address, via, reason });
  return log(
    'warn',
    stage,
    `refused ${address}${host ? ` (${host})` : ''} via ${via}: ${reason}`,
    'scope_refused',
    {
      address,
      via,
      reason,
      ...(host ? { host } : {}),
    },
  );
}

/** Adds an address to the inventory after the scope and host-limit checks. */
export function* admitAddress(
  ctx: StageContext,
  stage: string,
  ip: string,
  via: string,
  host?: string,
): Generator<ScanEvent> {
  const decision = ctx.policy.check(ip);
  if (!decision.allowed) {
    yield refuse(ctx, stage, ip, via, decision.reason, host);
    return;
  }
  const max = ctx.config.limits?.maxHosts;
  if (max !== undefined && !ctx.inventory.ips.has(ip) && ctx.inventory.ips.size >= max) {
    ctx.inventory.skippedHosts.push({
      host: ip,
      reason: `host limit ${max} reached`,
      code: 'host_limit',
      params: { max },
    });
    yield log('warn', stage, `host limit ${max} reached; ${ip} skipped`, 'host_limit', { address: ip });
    return;
  }
  const asset = ctx.inventory.addIp(ip, host);
  if (asset) yield { type: 'asset', asset };
}

/**
 * Resolves every pending name (A, AAAA, CNAME chain), drops wildcard answers, checks each
 * address against the scope policy, and emits subdomain and IP assets. In-target CNAME
 * targets become new names. Used by the dns stage and by later feedback (certificate SANs).
 */
export async function* resolvePendingNames(ctx: StageContext, stage: string): AsyncGenerator<ScanEvent> {
  const maxSubdomains = ctx.config.limits?.maxSubdomains;
  while (ctx.inventory.pendingNames.size && !ctx.signal.aborted) {
    const batch = [...ctx.inventory.pendingNames];
    ctx.inventory.pendingNames.clear();
    for (const [n] of batch) ctx.inventory.triedNames.add(n);
    const progress = new ProgressTracker(stage, batch.length);
    let done = 0;
    const results = mapConcurrent(
      batch,
      100,
      async ([name, sources]): Promise<[HostResolution | null, Set<string>]> => {
        try {
          return [await ctx.resolver.resolveHost(name, ctx.signal), sources];
        } catch (err) {
          // Unanswered is not "does not exist": the name's checks cannot be decided this scan.
          if (!ctx.signal.aborted)
            ctx.report.skip(`name not resolved: ${err instanceof DnsError ? err.code : 'error'}`, 1, name);
          return [null, sources];
        }
      },
      ctx.signal,
    );
    ctx.report.plan(batch.length);
    const resolved: [HostResolution, Set<string>][] = [];
    for await (const [r, sources] of results) {
      done++;
      if (r) ctx.report.done();
      if (r?.exists) resolved.push([r, sources]);
      const p = progress.tick(done);
      if (p) yield p;
    }
    // Deterministic order for limits and output.
    resolved.sort((a, b) => a[0].name.localeCompare(b[0].name));
    for (const [r, sources] of resolved) {
      const domain = registrable(r.name);
      const viaTarget = sources.has('target');
      const zone = [...ctx.inventory.wildcards.keys()].find((d) => r.name.endsWith(`.${d}`));
      if (!viaTarget && zone && isWildcardAnswer(r, ctx.inventory.wildcards.get(zone))) continue;
      if (maxSubdomains !== undefined && ctx.inventory.subdomains.size >= maxSubdomains) {
        yield log(
          'warn',
          stage,
          `subdomain limit ${maxSubdomains} reached; ${r.name} skipped`,
          'subdomain_limit',
          {
            name: r.name,
          },
        );
        continue;
      }
      const allowedIps: string[] = [];
      const events: ScanEvent[] = [];
      for (const ip of r.addresses) {
        const via = r.cnames.length ? `dns:cname:${r.cnames.at(-1)}` : 'dns';
        for (const e of admitAddress(ctx, stage, ip, via, r.name)) events.push(e);
        if (ctx.inventory.ips.has(ip)) allowedIps.push(ip);
      }
      const asset = {
        kind: 'subdomain' as const,
        name: r.name,
        domain,
        ips: allowedIps,
        cnames: r.cnames,
        dangling: r.dangling,
        sources: [...sources].sort(),
      };
      if (ctx.inventory.addSubdomain(asset)) yield { type: 'asset', asset };
      yield* events;
      for (const c of r.cnames) if (ctx.isInTarget(c)) ctx.inventory.addCandidate(c, 'cname');
    }
  }
}

export function resolveStage(): Stage {
  return {
    name: STAGE,
    class: 'class_resources',
    async *run(ctx) {
      for (const t of ctx.targets) {
        if (t.type === 'peer') yield* admitAddress(ctx, STAGE, t.address, 'target');
        if (t.type === 'network')
          for (const ip of networkAddresses(t.cidr)) yield* admitAddress(ctx, STAGE, ip, 'target');
      }
      yield* resolvePendingNames(ctx, STAGE);
    },
  };
}
