import {
  SCAN_SUBCLASS_VALUES,
  SUBCLASS_OF_CLASS,
  type TScanClass,
  type TScanPartial,
  type TScanSubclass,
  type TSeverity,
} from '@perimeter/contracts';
import type {
  Asset,
  Severity as EngineSeverity,
  Finding,
  ScanCoverage,
  ScanSummary,
} from '@perimeter/engine';
import { scanMessage } from '../../lib/scan-messages.ts';
import type { FixRule } from './scans-repo.ts';

/** Engine stage names in order; the finding stages follow discovery. */
export const DISCOVERY_STAGES = ['subdomains', 'dns', 'ports', 'http', 'fingerprint'] as const;
export const SUBCLASS_STAGE: Record<TScanSubclass, string> = {
  exploit_scanner: 'templates',
  exploit_db: 'cve-matching',
  leakcheck: 'leaks',
};

/**
 * The subclasses a scan runs. A full scan runs every subclass the plan allows; a custom scan
 * runs the chosen subclasses plus every subclass of the chosen classes.
 */
export function resolveSubclasses(
  scanType: 'full' | 'custom',
  custom: { classes: TScanClass[]; subclasses: TScanSubclass[] } | undefined,
  allowed: readonly TScanSubclass[],
): { subclasses: TScanSubclass[]; classes: TScanClass[]; refused: TScanSubclass[] } {
  let wanted: TScanSubclass[];
  if (scanType === 'full') wanted = allowed.slice();
  else {
    const set = new Set<TScanSubclass>(custom?.subclasses ?? []);
    for (const s of SCAN_SUBCLASS_VALUES) if (custom?.classes.includes(SUBCLASS_OF_CLASS[s])) set.add(s);
    wanted = SCAN_SUBCLASS_VALUES.filter((s) => set.has(s));
  }
  const refused = scanType === 'custom' ? wanted.filter((s) => !allowed.includes(s)) : [];
  const subclasses = wanted.filter((s) => allowed.includes(s));
  const classes: TScanClass[] = ['class_resources'];
  for (const s of subclasses) if (!classes.includes(SUBCLASS_OF_CLASS[s])) classes.push(SUBCLASS_OF_CLASS[s]);
  return { subclasses, classes, refused };
}

export function stageList(subclasses: readonly string[]): string[] {
  return [
    ...DISCOVERY_STAGES,
    ...SCAN_SUBCLASS_VALUES.filter((s) => subclasses.includes(s)).map((s) => SUBCLASS_STAGE[s]),
  ];
}

/** Overall percent from the current stage and its own progress (never 100 before the end). */
export function percentOf(stages: string[], stage: string, done: number, total: number): number {
  const i = stages.indexOf(stage);
  if (i < 0) return 0;
  const within = total > 0 ? Math.min(1, done / total) : 0;
  return Math.min(99, Math.floor((100 * (i + within)) / stages.length));
}

export function apiSeverity(s: EngineSeverity | string): TSeverity {
  return s === 'info' ? 'informational' : (s as TSeverity);
}

export const SEVERITY_RANK: Record<TSeverity, number> = {
  critical: 5,
  high: 4,
  medium: 3,
  low: 2,
  informational: 1,
  unknown: 0,
};

/** A stable key of an asset inside one scan, so a retried scan overwrites rather than duplicates. */
export function assetKey(asset: Asset): string {
  switch (asset.kind) {
    case 'subdomain':
      return asset.name;
    case 'ip':
      return asset.ip;
    case 'service':
      return `${asset.ip}:${asset.port}`;
    case 'url':
      return asset.url;
    case 'technology':
      return `${asset.target}|${asset.name}|${asset.version ?? ''}`;
    case 'email':
      return asset.email;
  }
}

export interface ScopeRow {
  name: string;
  kind: 'subdomain' | 'ip';
  mainDomain: string | null;
  ipAddresses: string[];
  openedPorts: number[];
  services: { port: number; service: string; product: string | null; version: string | null }[];
  technologies: { name: string; version: string | null }[];
  emails: string[];
  cnames: string[];
  urls: string[];
}

const pushUnique = <T>(list: T[], item: T) => {
  if (!list.includes(item)) list.push(item);
};

/** Merges asset events into one row per host name (or bare address): the scan's scope. */
export class ScopeModel {
  readonly rows = new Map<string, ScopeRow>();
  readonly dirty = new Set<string>();

  private row(name: string, kind: ScopeRow['kind'], mainDomain: string | null = null): ScopeRow {
    let r = this.rows.get(name);
    if (!r) {
      r = {
        name,
        kind,
        mainDomain,
        ipAddresses: [],
        openedPorts: [],
        services: [],
        technologies: [],
        emails: [],
        cnames: [],
        urls: [],
      };
      this.rows.set(name, r);
      // A bare address row made late (by a banner's technology, say) still lists every open port.
      if (kind === 'ip') this.addIp(r, name);
    }
    if (mainDomain && !r.mainDomain) r.mainDomain = mainDomain;
    this.dirty.add(name);
    return r;
  }

  /** Services by address, so a name resolved later (certificate SANs) still gets its ports. */
  private readonly servicesByIp = new Map<string, ScopeRow['services']>();
  /** Technologies seen on an address (service banners): every name on it runs them too. */
  private readonly technologiesByIp = new Map<string, ScopeRow['technologies']>();

  private addIp(r: ScopeRow, ip: string): void {
    pushUnique(r.ipAddresses, ip);
    for (const s of this.servicesByIp.get(ip) ?? []) this.addService(r, s);
    for (const t of this.technologiesByIp.get(ip) ?? []) this.addTechnology(r, t);
  }

  private addTechnology(r: ScopeRow, t: ScopeRow['technologies'][number]): void {
    this.dirty.add(r.name);
    if (!r.technologies.some((x) => x.name === t.name && x.version === t.version)) r.technologies.push(t);
  }

  private addService(r: ScopeRow, s: ScopeRow['services'][number]): void {
    this.dirty.add(r.name);
    if (!r.openedPorts.includes(s.port)) {
      r.openedPorts.push(s.port);
      r.openedPorts.sort((a, b) => a - b);
    }
    if (!r.services.some((x) => x.port === s.port)) r.services.push(s);
  }

  private rowsWithIp(ip: string): ScopeRow[] {
    const found = [...this.rows.values()].filter((r) => r.name === ip || r.ipAddresses.includes(ip));
    return found.length ? found : [this.row(ip, 'ip')];
  }

  add(asset: Asset): void {
    switch (asset.kind) {
      case 'subdomain': {
        const r = this.row(asset.name, 'subdomain', asset.domain);
        for (const ip of asset.ips) this.addIp(r, ip);
        for (const c of asset.cnames) pushUnique(r.cnames, c);
        return;
      }
      case 'ip': {
        if (asset.hostnames.length === 0) {
          this.addIp(this.row(asset.ip, 'ip'), asset.ip);
          return;
        }
        for (const h of asset.hostnames) this.addIp(this.row(h, 'subdomain'), asset.ip);
        return;
      }
      case 'service': {
        const service = {
          port: asset.port,
          service: asset.service,
          product: asset.product ?? null,
          version: asset.version ?? null,
        };
        const known = this.servicesByIp.get(asset.ip) ?? [];
        if (!known.some((k) => k.port === asset.port)) known.push(service);
        this.servicesByIp.set(asset.ip, known);
        for (const r of this.rowsWithIp(asset.ip)) this.addService(r, service);
        return;
      }
      case 'url':
        pushUnique(this.row(asset.host, /^[\d.]+$|:/.test(asset.host) ? 'ip' : 'subdomain').urls, asset.url);
        return;
      case 'technology': {
        const tech = { name: asset.name, version: asset.version ?? null };
        if (!/^[\d.]+$|:/.test(asset.host)) {
          this.addTechnology(this.row(asset.host, 'subdomain'), tech);
          return;
        }
        // A banner on an address (ssh, ftp, a database, a cache): the names on it carry it too.
        const known = this.technologiesByIp.get(asset.host) ?? [];
        if (!known.some((k) => k.name === tech.name && k.version === tech.version)) known.push(tech);
        this.technologiesByIp.set(asset.host, known);
        this.row(asset.host, 'ip');
        for (const r of this.rowsWithIp(asset.host)) this.addTechnology(r, tech);
        return;
      }
      case 'email':
        pushUnique(this.row(asset.domain, 'subdomain').emails, asset.email);
        return;
    }
  }

  /**
   * Technologies as the scope chip counts them (scans-repo scopeSummary): every host row's list,
   * so a banner on an address counts on each name it carries — the progress panel says the same.
   */
  technologyCount(): number {
    let n = 0;
    for (const r of this.rows.values()) n += r.technologies.length;
    return n;
  }

  takeDirty(): ScopeRow[] {
    const out = [...this.dirty].map((n) => this.rows.get(n) as ScopeRow);
    this.dirty.clear();
    return out;
  }
}

/** The host a finding is about (leaks have none: their domain stands in). */
export function findingHost(f: Finding): string {
  return f.subclass === 'leakcheck' ? f.mainDomain : f.host;
}

/** Why a subdomain found by the scan was not scanned (skipped_hosts reason). */
export const subdomainLimitReason = (plan: { name: string; subdomains: number }) =>
  `plan limit: the ${plan.name} plan covers ${plan.subdomains} subdomains per scan`;

/** The done scan's message when its plan's subdomain limit cut discovery short. */
export const subdomainLimitMessage = (plan: { name: string; subdomains: number }, skipped: number) =>
  scanMessage('plan_subdomain_limit', { plan: plan.name, subdomains: plan.subdomains, skipped });

/** The scan's `partial` field: every stage that ended early or skipped work, or null. */
export function scanPartialOf(summary: ScanSummary): TScanPartial | null {
  const stages = summary.stages
    .filter((s) => s.partial)
    .map((s) => ({
      stage: s.name,
      status: s.status,
      reason: s.reason ?? null,
      planned: s.planned ?? null,
      ran: s.ran ?? null,
      skipped: s.skipped.map((k) => ({ reason: k.reason, count: k.count, examples: k.examples })),
    }));
  return stages.length ? { stages } : null;
}

/**
 * What a finished scan may mark fixed (issue: a check that could not run is not a "no").
 * Templates are judged per check and host from the engine's coverage; the other families per
 * stage: a stage that ended early or skipped work — or discovery that did — fixes nothing.
 */
export function fixRuleOf(
  summary: ScanSummary,
  subclasses: readonly string[],
  coverage: ScanCoverage,
): FixRule {
  const byName = new Map(summary.stages.map((s) => [s.name, s]));
  const discoveryPartial = DISCOVERY_STAGES.some((d) => byName.get(d)?.partial);
  const rule: FixRule = { undecided: [] };
  for (const sub of subclasses) {
    const stage = SUBCLASS_STAGE[sub as TScanSubclass];
    const outcome = stage ? byName.get(stage) : undefined;
    if (!stage || !outcome || outcome.status === 'aborted' || outcome.status === 'skipped') {
      rule.undecided.push(sub);
    } else if (sub === 'exploit_scanner' && coverage.tracks(stage)) {
      // A host no check ran against is gone only if the whole scan ran: then it is a "no" too.
      rule.isTemplateFixable = (templateId, host) =>
        coverage.isDecided(stage, templateId, host) || (!summary.partial && !coverage.covers(stage, host));
    } else if (outcome.partial || discoveryPartial) {
      rule.undecided.push(sub);
    }
  }
  return rule;
}
