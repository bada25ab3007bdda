import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import type { Severity } from '../findings/types.ts';
import { toRule } from './cpe.ts';
import type { ConfigNode, Configuration, CpeMatchRule, VulnRecord } from './vuln-types.ts';

type Json = Record<string, unknown>;

function obj(v: unknown): Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {};
}
function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** CVSS v3 bands (and v2 bands, which have no "critical"). */
export function severityFromCvss(score: number | undefined, version: 2 | 3 = 3): Severity {
  if (score === undefined) return 'unknown';
  if (score === 0) return 'info';
  if (version === 2) return score >= 7 ? 'high' : score >= 4 ? 'medium' : 'low';
  if (score >= 9) return 'critical';
  if (score >= 7) return 'high';
  if (score >= 4) return 'medium';
  return 'low';
}

/** NVD timestamps without a zone are UTC; normalise to ISO 8601. */
function isoDate(v: unknown): string | undefined {
  const s = str(v);
  if (!s) return undefined;
  const withZone = /Z$|[+-]\d\d:?\d\d$/.test(s) ? s : `${s}Z`;
  const d = new Date(withZone);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

function rule(m: Json, criteriaKey: 'cpe23Uri' | 'criteria'): CpeMatchRule | undefined {
  const criteria = str(m[criteriaKey]);
  if (!criteria) return undefined;
  return toRule(criteria, m.vulnerable === true, {
    versionStartIncluding: str(m.versionStartIncluding),
    versionStartExcluding: str(m.versionStartExcluding),
    versionEndIncluding: str(m.versionEndIncluding),
    versionEndExcluding: str(m.versionEndExcluding),
  });
}

function node(n: Json, matchKey: 'cpe_match' | 'cpeMatch', criteriaKey: 'cpe23Uri' | 'criteria'): ConfigNode {
  return {
    operator: str(n.operator)?.toUpperCase() === 'AND' ? 'AND' : 'OR',
    negate: n.negate === true,
    matches: arr(n[matchKey])
      .map((m) => rule(obj(m), criteriaKey))
      .filter((r): r is CpeMatchRule => r !== undefined),
    children: arr(n.children).map((c) => node(obj(c), matchKey, criteriaKey)),
  };
}

function englishDescription(list: unknown[]): string | undefined {
  const items = list.map(obj);
  return str((items.find((d) => d.lang === 'en') ?? items[0])?.value);
}

/** NVD JSON 1.1 feed (`CVE_Items`). Each top-level node is its own configuration. */
export function importNvd11(feed: unknown): VulnRecord[] {
  return arr(obj(feed).CVE_Items)
    .map((raw) => {
      const item = obj(raw);
      const cve = obj(item.cve);
      const impact = obj(item.impact);
      const v3 = obj(obj(impact.baseMetricV3).cvssV3);
      const v2 = obj(obj(impact.baseMetricV2).cvssV2);
      const score3 = num(v3.baseScore);
      const score2 = num(v2.baseScore);
      const nodes = arr(obj(item.configurations).nodes).map((n) => node(obj(n), 'cpe_match', 'cpe23Uri'));
      const record: VulnRecord = {
        id: str(obj(cve.CVE_data_meta).ID) ?? '',
        aliases: [],
        severity: score3 !== undefined ? severityFromCvss(score3, 3) : severityFromCvss(score2, 2),
        cwe: arr(obj(cve.problemtype).problemtype_data)
          .flatMap((p) => arr(obj(p).description))
          .map((d) => str(obj(d).value) ?? '')
          .filter((v) => v.startsWith('CWE-')),
        references: arr(obj(cve.references).reference_data)
          .map((r) => str(obj(r).url) ?? '')
          .filter(Boolean),
        configurations: nodes.map((n) => ({ operator: 'OR', nodes: [n] })),
        source: 'nvd',
      };
      const description = englishDescription(arr(obj(cve.description).description_data));
      if (description) record.description = description;
      const published = isoDate(item.publishedDate);
      if (published) record.published = published;
      const modified = isoDate(item.lastModifiedDate);
      if (modified) record.lastModified = modified;
      const score = score3 ?? score2;
      if (score !== undefined) record.cvssScore = score;
      const vector = str(v3.vectorString) ?? str(v2.vectorString);
      if (vector) record.cvssVector = vector;
      return record;
    })
    .filter((r) => r.id !== '');
}

function bestMetric(metrics: Json): { score?: number; vector?: string; version: 2 | 3 } {
  for (const key of ['cvssMetricV40', 'cvssMetricV31', 'cvssMetricV30']) {
    const list = arr(metrics[key]).map(obj);
    const chosen = list.find((m) => m.type === 'Primary') ?? list[0];
    if (chosen) {
      const data = obj(chosen.cvssData);
      const score = num(data.baseScore);
      const vector = str(data.vectorString);
      return { ...(score !== undefined ? { score } : {}), ...(vector ? { vector } : {}), version: 3 };
    }
  }
  const v2 = arr(metrics.cvssMetricV2).map(obj);
  const chosen = v2.find((m) => m.type === 'Primary') ?? v2[0];
  if (chosen) {
    const data = obj(chosen.cvssData);
    const score = num(data.baseScore);
    const vector = str(data.vectorString);
    return { ...(score !== undefined ? { score } : {}), ...(vector ? { vector } : {}), version: 2 };
  }
  return { version: 3 };
}

function importNvd20Cve(c: Json): VulnRecord | undefined {
  const id = str(c.id);
  if (!id) return undefined;
  const metric = bestMetric(obj(c.metrics));
  const configurations: Configuration[] = arr(c.configurations).map((cfg) => {
    const o = obj(cfg);
    return {
      operator: str(o.operator)?.toUpperCase() === 'AND' ? 'AND' : 'OR',
      nodes: arr(o.nodes).map((n) => node(obj(n), 'cpeMatch', 'criteria')),
    };
  });
  const record: VulnRecord = {
    id,
    aliases: [],
    severity: severityFromCvss(metric.score, metric.version),
    cwe: arr(c.weaknesses)
      .flatMap((w) => arr(obj(w).description))
      .map((d) => str(obj(d).value) ?? '')
      .filter((v) => v.startsWith('CWE-')),
    references: [
      ...new Set(
        arr(c.references)
          .map((r) => str(obj(r).url) ?? '')
          .filter(Boolean),
      ),
    ],
    configurations,
    source: 'nvd',
  };
  const description = englishDescription(arr(c.descriptions));
  if (description) record.description = description;
  const published = isoDate(c.published);
  if (published) record.published = published;
  const modified = isoDate(c.lastModified);
  if (modified) record.lastModified = modified;
  if (metric.score !== undefined) record.cvssScore = metric.score;
  if (metric.vector) record.cvssVector = metric.vector;
  return record;
}

/** NVD 2.0: a single `cve` object, an API page or a yearly feed (`vulnerabilities[].cve`). */
export function importNvd20(doc: unknown): VulnRecord[] {
  const o = obj(doc);
  if (Array.isArray(o.vulnerabilities)) {
    return o.vulnerabilities
      .map((v) => importNvd20Cve(obj(obj(v).cve)))
      .filter((r): r is VulnRecord => r !== undefined);
  }
  const single = importNvd20Cve(o.cve !== undefined ? obj(o.cve) : o);
  return single ? [single] : [];
}

const RETIRE_SEVERITY: Record<string, Severity> = {
  critical: 'critical',
  high: 'high',
  medium: 'medium',
  low: 'low',
  none: 'info',
};

/**
 * retire.js repository (v5 / flat format with atOrAbove/below, or the master format with
 * `ranges`). Each vulnerability becomes a record on the pseudo-CPE `retirejs:<library>`.
 */
export function importRetireJs(repo: unknown): VulnRecord[] {
  const out: VulnRecord[] = [];
  for (const [library, entryRaw] of Object.entries(obj(repo))) {
    if (library === 'retire-example' || library === 'dont check') continue;
    const entry = obj(entryRaw);
    arr(entry.vulnerabilities).forEach((vRaw, index) => {
      const v = obj(vRaw);
      const identifiers = obj(v.identifiers);
      const cves = arr(identifiers.CVE)
        .map((c) => str(c) ?? '')
        .filter(Boolean);
      const ghsa = str(identifiers.githubID);
      const summary = str(identifiers.summary) ?? str(v.summary);
      const ranges = Array.isArray(v.ranges) ? v.ranges.map(obj) : [v];
      const matches: CpeMatchRule[] = ranges.map((r) => {
        const m: CpeMatchRule = {
          criteria: `cpe:2.3:a:retirejs:${library.toLowerCase()}:*:*:*:*:*:*:*:*`,
          part: 'a',
          vendor: 'retirejs',
          product: library.toLowerCase(),
          version: '*',
          update: '*',
          vulnerable: true,
        };
        const above = str(r.atOrAbove);
        const below = str(r.below);
        if (above) m.versionStartIncluding = above;
        if (below) m.versionEndExcluding = below;
        return m;
      });
      // One record per CVE, so each CVE is its own finding; advisories without a CVE keep their GHSA id.
      const ids = cves.length > 0 ? cves : [ghsa ?? `retire-${library}-${index}`];
      for (const id of ids) {
        const record: VulnRecord = {
          id,
          aliases: ghsa && ghsa !== id ? [ghsa] : [],
          severity: RETIRE_SEVERITY[str(v.severity)?.toLowerCase() ?? ''] ?? 'unknown',
          cwe: arr(v.cwe)
            .map((c) => str(c) ?? '')
            .filter(Boolean),
          references: arr(v.info)
            .map((i) => str(i) ?? '')
            .filter(Boolean),
          configurations: [
            { operator: 'OR', nodes: [{ operator: 'OR', negate: false, matches, children: [] }] },
          ],
          source: 'retirejs',
        };
        if (summary) record.description = summary;
        out.push(record);
      }
    });
  }
  return out;
}

export type VulnFeedFormat = 'nvd-1.1' | 'nvd-2.0' | 'retirejs';

export function detectFeedFormat(doc: unknown): VulnFeedFormat | undefined {
  const o = obj(doc);
  if (Array.isArray(o.CVE_Items)) return 'nvd-1.1';
  if (
    Array.isArray(o.vulnerabilities) ||
    (typeof o.id === 'string' && /^CVE-/.test(o.id)) ||
    o.cve !== undefined
  )
    return 'nvd-2.0';
  const first = Object.values(o)[0];
  if (
    first &&
    typeof first === 'object' &&
    ('vulnerabilities' in (first as Json) || 'extractors' in (first as Json))
  )
    return 'retirejs';
  return undefined;
}

export function importFeed(doc: unknown, format = detectFeedFormat(doc)): VulnRecord[] {
  switch (format) {
    case 'nvd-1.1':
      return importNvd11(doc);
    case 'nvd-2.0':
      return importNvd20(doc);
    case 'retirejs':
      return importRetireJs(doc);
    default:
      throw new Error('unknown vulnerability feed format');
  }
}

function parseBytes(bytes: Buffer): unknown {
  const text =
    bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes).toString('utf8') : bytes.toString('utf8');
  return JSON.parse(text);
}

/** Imports a feed file (JSON or .json.gz, format detected) for air-gapped installs. */
export async function importFeedFile(file: string, format?: VulnFeedFormat): Promise<VulnRecord[]> {
  return importFeed(parseBytes(await readFile(file)), format);
}

/** Imports a feed from a configured URL with an injectable fetch. */
export async function importFeedUrl(
  url: string,
  fetchImpl: typeof fetch = fetch,
  format?: VulnFeedFormat,
): Promise<VulnRecord[]> {
  const res = await fetchImpl(url);
  if (!res.ok) throw new Error(`feed ${url}: HTTP ${res.status}`);
  return importFeed(parseBytes(Buffer.from(await res.arrayBuffer())), format);
}
