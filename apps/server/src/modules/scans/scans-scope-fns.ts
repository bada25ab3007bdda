import type { Asset } from '@perimeter/engine';

/*
 * The scan's scope as the user sees it: one row per host name or address, with what the scan
 * found on it (addresses, open ports, services, technologies, e-mails), built from its assets.
 */

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

  takeDirty(): ScopeRow[] {
    const out = [...this.dirty].map((n) => this.rows.get(n) as ScopeRow);
    this.dirty.clear();
    return out;
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
}
