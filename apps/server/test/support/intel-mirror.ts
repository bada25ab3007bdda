import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

/**
 * A local mirror of the vulnerability-intelligence sources in their real formats: the NVD CVE
 * API 2.0 (paging, lastModStartDate/lastModEndDate windows of at most 120 days, resultsPerPage
 * ≤ 2000), the CISA KEV JSON catalogue, the FIRST EPSS daily CSV (gzip) and a retire.js
 * repository. Tests and the bench point INTEL_*_URL at it; faults are injected per request.
 */
export interface NvdRecord {
  id: string;
  published: string;
  lastModified: string;
  vendor: string;
  product: string;
  versionEndExcluding: string;
  description: string;
  score: number;
}

const PRODUCTS = [
  ['f5', 'nginx'],
  ['apache', 'http_server'],
  ['openbsd', 'openssh'],
  ['php', 'php'],
  ['jquery', 'jquery'],
  ['grafana', 'grafana'],
  ['exim', 'exim'],
  ['redis', 'redis'],
] as const;

/** A deterministic record `i` (the bench generates 250,000 of them without storing them). */
export function generatedRecord(i: number, lastModified: Date): NvdRecord {
  const [vendor, product] = PRODUCTS[i % PRODUCTS.length] as readonly [string, string];
  const year = 2000 + (i % 25);
  return {
    id: `CVE-${year}-${String(100000 + i)}`,
    published: new Date(Date.UTC(year, i % 12, 1 + (i % 28))).toISOString().slice(0, 23),
    lastModified: lastModified.toISOString().slice(0, 23),
    vendor,
    product,
    versionEndExcluding: `${1 + (i % 9)}.${i % 20}.${i % 7}`,
    description: `Generated record ${i}: a flaw in ${product} before ${1 + (i % 9)}.${i % 20}.${i % 7} lets a remote attacker do something.`,
    score: 1 + (i % 90) / 10,
  };
}

/** One `vulnerabilities[]` item of the NVD CVE API 2.0. */
export function nvdItem(r: NvdRecord): object {
  const severity = r.score >= 9 ? 'CRITICAL' : r.score >= 7 ? 'HIGH' : r.score >= 4 ? 'MEDIUM' : 'LOW';
  return {
    cve: {
      id: r.id,
      sourceIdentifier: 'cve@mitre.org',
      published: r.published,
      lastModified: r.lastModified,
      vulnStatus: 'Analyzed',
      descriptions: [{ lang: 'en', value: r.description }],
      metrics: {
        cvssMetricV31: [
          {
            source: 'nvd@nist.gov',
            type: 'Primary',
            cvssData: {
              version: '3.1',
              vectorString: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
              baseScore: r.score,
              baseSeverity: severity,
            },
            exploitabilityScore: 3.9,
            impactScore: 5.9,
          },
        ],
      },
      weaknesses: [
        { source: 'nvd@nist.gov', type: 'Primary', description: [{ lang: 'en', value: 'CWE-787' }] },
      ],
      configurations: [
        {
          nodes: [
            {
              operator: 'OR',
              negate: false,
              cpeMatch: [
                {
                  vulnerable: true,
                  criteria: `cpe:2.3:a:${r.vendor}:${r.product}:*:*:*:*:*:*:*:*`,
                  versionEndExcluding: r.versionEndExcluding,
                  matchCriteriaId: '00000000-0000-0000-0000-000000000000',
                },
              ],
            },
          ],
        },
      ],
      references: [{ url: `https://example.org/advisories/${r.id}`, source: 'cve@mitre.org' }],
    },
  };
}

export interface MirrorRequest {
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
}

/** A fault for one request: drop the connection mid-body, answer a status (with headers), or a malformed page. */
export type Fault =
  | 'drop'
  | 'malformed'
  | 'not-json'
  | number
  | { status: number; headers: Record<string, string> }
  | undefined;

export interface NvdSource {
  count: number;
  record(i: number): NvdRecord;
}

export class IntelMirror {
  readonly requests: MirrorRequest[] = [];
  nvd: NvdSource = { count: 0, record: (i) => generatedRecord(i, new Date(0)) };
  /** Indexes of records by last-modified time, for windows (rebuilt when nvd changes). */
  private modIndex: { t: number; i: number }[] | null = null;
  private modIndexOf: NvdSource | null = null;
  kev: unknown = { vulnerabilities: [] };
  epss: Buffer = Buffer.alloc(0);
  retire: unknown = {};
  fault: (req: MirrorRequest, n: number) => Fault = () => undefined;
  /** Real `cve` objects (NVD's own records) served instead of generated ones when set. */
  rawCves: object[] | null = null;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(host: string): Promise<IntelMirror> {
    let mirror: IntelMirror | undefined;
    const server = createServer((req, res) => mirror?.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, host, resolve));
    const { port } = server.address() as AddressInfo;
    mirror = new IntelMirror(server, `http://${host}:${port}`);
    return mirror;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  nvdRequests(): MirrorRequest[] {
    return this.requests.filter((r) => r.path === '/nvd');
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const u = new URL(req.url ?? '/', 'http://mirror');
    const r: MirrorRequest = { path: u.pathname, query: u.searchParams, headers: req.headers };
    this.requests.push(r);
    const fault = this.fault(r, this.requests.length);
    if (typeof fault === 'number') {
      res.writeHead(fault, { 'content-type': 'text/plain' }).end(`status ${fault}`);
      return;
    }
    if (typeof fault === 'object') {
      res
        .writeHead(fault.status, { 'content-type': 'text/plain', ...fault.headers })
        .end(`status ${fault.status}`);
      return;
    }
    let body: Buffer;
    let type = 'application/json';
    if (u.pathname === '/nvd') {
      const page = this.nvdPage(u.searchParams);
      if (typeof page === 'number') {
        res.writeHead(page).end();
        return;
      }
      body = Buffer.from(
        fault === 'malformed'
          ? JSON.stringify({
              resultsPerPage: 1,
              startIndex: Number(u.searchParams.get('startIndex') ?? 0),
              totalResults: this.nvd.count,
              vulnerabilities: [{ cve: { descriptions: [] } }],
            })
          : page,
      );
    } else if (u.pathname === '/kev.json') body = Buffer.from(JSON.stringify(this.kev));
    else if (u.pathname === '/epss.csv.gz') {
      body = this.epss;
      type = 'application/gzip';
    } else if (u.pathname === '/retire.json') body = Buffer.from(JSON.stringify(this.retire));
    else {
      res.writeHead(404).end();
      return;
    }
    if (fault === 'not-json') body = body.subarray(0, Math.floor(body.length / 2));
    res.writeHead(200, { 'content-type': type, 'content-length': body.length });
    if (fault === 'drop') {
      // Half the page, then the connection goes away.
      res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.socket?.destroy());
      return;
    }
    res.end(body);
  }

  private nvdPage(q: URLSearchParams): string | number {
    const perPage = Number(q.get('resultsPerPage') ?? 2000);
    const startIndex = Number(q.get('startIndex') ?? 0);
    if (!(perPage >= 1 && perPage <= 2000) || !(startIndex >= 0)) return 400;
    const from = q.get('lastModStartDate');
    const to = q.get('lastModEndDate');
    if ((from === null) !== (to === null)) return 404;
    let total: number;
    let indexAt: (k: number) => number;
    if (from !== null && to !== null) {
      const a = Date.parse(from);
      const b = Date.parse(to);
      // NVD answers 404 to a window longer than 120 days.
      if (!(b >= a) || b - a > 120 * 86_400_000) return 404;
      const list = this.modified().filter((x) => x.t >= a && x.t <= b);
      total = list.length;
      indexAt = (k) => (list[k] as { i: number }).i;
    } else {
      total = this.nvd.count;
      indexAt = (k) => k;
    }
    const end = Math.min(total, startIndex + perPage);
    const items: string[] = [];
    if (this.rawCves && from === null) {
      total = this.rawCves.length;
      for (let k = startIndex; k < Math.min(total, startIndex + perPage); k++)
        items.push(JSON.stringify({ cve: this.rawCves[k] }));
    } else
      for (let k = startIndex; k < end; k++) items.push(JSON.stringify(nvdItem(this.nvd.record(indexAt(k)))));
    return `{"resultsPerPage":${items.length},"startIndex":${startIndex},"totalResults":${total},"format":"NVD_CVE","version":"2.0","timestamp":"${new Date().toISOString().slice(0, 23)}","vulnerabilities":[${items.join(',')}]}`;
  }

  private modified(): { t: number; i: number }[] {
    if (!this.modIndex || this.modIndexOf !== this.nvd) {
      const list: { t: number; i: number }[] = [];
      for (let i = 0; i < this.nvd.count; i++)
        list.push({ t: Date.parse(`${this.nvd.record(i).lastModified}Z`), i });
      this.modIndex = list.sort((x, y) => x.t - y.t || x.i - y.i);
      this.modIndexOf = this.nvd;
    }
    return this.modIndex;
  }
}

/** A CISA KEV catalogue document. */
export function kevCatalogue(
  version: string,
  entries: { cve: string; dateAdded: string; dueDate: string; ransomware: boolean }[],
): object {
  return {
    title: 'CISA Catalog of Known Exploited Vulnerabilities',
    catalogVersion: version,
    dateReleased: `${version.replace(/\./g, '-')}T12:00:00.000Z`,
    count: entries.length,
    vulnerabilities: entries.map((e) => ({
      cveID: e.cve,
      vendorProject: 'Vendor',
      product: 'Product',
      vulnerabilityName: `Vulnerability ${e.cve}`,
      dateAdded: e.dateAdded,
      shortDescription: 'A known exploited vulnerability.',
      requiredAction: 'Apply mitigations per vendor instructions or discontinue use of the product.',
      dueDate: e.dueDate,
      knownRansomwareCampaignUse: e.ransomware ? 'Known' : 'Unknown',
      notes: '',
      cwes: ['CWE-22'],
    })),
  };
}

/** The FIRST EPSS daily file: a comment line with model and date, the header, one row per CVE; gzip. */
export function epssFile(scoreDate: string, rows: [string, number, number][]): Buffer {
  const text = [
    `#model_version:v2025.03.14,score_date:${scoreDate}T00:00:00+0000`,
    'cve,epss,percentile',
    ...rows.map(([cve, score, pct]) => `${cve},${score.toFixed(5)},${pct.toFixed(5)}`),
  ].join('\n');
  return gzipSync(`${text}\n`);
}
