import { EVENT_SORT_KEYS, EVENTS_PAGE_SIZE, type TAllEventsBody } from '@perimeter/contracts';
import { drizzle } from 'drizzle-orm/node-postgres';
import type pg from 'pg';
import type { FindingsMemo } from '../../src/modules/findings/findings-counts.ts';
import { listFindings } from '../../src/modules/findings/findings-repo.ts';
import { listTechnologiesWithoutCve } from '../../src/modules/findings/findings-tech-repo.ts';

/**
 * Every request shape of the events API the bench measures and the plan test guards: each sort key
 * of each subclass (and the default order), each filter, and — for the plan sweep — every sort key
 * × filter, all in both orders. Written against the data of findings-bulk.ts (hosts h<n>.site<m>.example,
 * e-mails user<i>@site<m>.example).
 */

export type Subclass = keyof typeof EVENT_SORT_KEYS;
export interface EventsCase {
  label: string;
  body: TAllEventsBody;
  offset?: number;
  /** get_one_user_abstract_scan_events of the bulk scan. */
  oneScan?: boolean;
}

const SUBCLASSES = Object.keys(EVENT_SORT_KEYS) as Subclass[];

/** The filters of one subclass, each as the body fields it adds. */
export function filtersOf(sub: Subclass): { label: string; body: Record<string, unknown> }[] {
  const common = [
    { label: 'severity [critical,high]', body: { severity: ['critical', 'high'] } },
    { label: 'severity [critical,low]', body: { severity: ['critical', 'low'] } },
    { label: 'targets_type domain', body: { targets_type: 'domain' } },
    { label: 'targets_type peer', body: { targets_type: 'peer' } },
    {
      label: 'main_domain = site7.example',
      body: { main_domain_filter_opt: { domain_filter: 'site7.example', is_contains: false } },
    },
    {
      label: 'main_domain contains "site1"',
      body: { main_domain_filter_opt: { domain_filter: 'site1', is_contains: true } },
    },
    { label: 'hide_resolved', body: { hide_resolved: true } },
  ];
  if (sub === 'leakcheck')
    return [
      ...common,
      {
        label: 'domain contains "site13"',
        body: { subdomain_filter_opt: { subdomain_filter: 'site13', is_contains: true } },
      },
      { label: 'leak_email_password true', body: { leak_email_password: true } },
      { label: 'leak_email_password false', body: { leak_email_password: false } },
      {
        label: 'email = user12@site13.example',
        body: { email_filter_opt: { email_filter: 'user12@site13.example', is_contains: false } },
      },
      {
        label: 'email contains "user12"',
        body: { email_filter_opt: { email_filter: 'user12', is_contains: true } },
      },
      {
        label: 'email contains "user1"',
        body: { email_filter_opt: { email_filter: 'user1', is_contains: true } },
      },
    ];
  const hosts = [
    {
      label: 'subdomain = h12',
      body: { subdomain_filter_opt: { subdomain_filter: 'h12', is_contains: false } },
    },
    {
      label: 'subdomain contains "h12"',
      body: { subdomain_filter_opt: { subdomain_filter: 'h12', is_contains: true } },
    },
    {
      label: 'subdomain contains "h1999"',
      body: { subdomain_filter_opt: { subdomain_filter: 'h1999', is_contains: true } },
    },
    {
      label: 'subdomain contains "h1"',
      body: { subdomain_filter_opt: { subdomain_filter: 'h1', is_contains: true } },
    },
  ];
  if (sub === 'exploit_db')
    return [
      ...common,
      ...hosts,
      { label: 'vulnerabilities_existence with', body: { vulnerabilities_existence: 'with' } },
      { label: 'known_exploited', body: { known_exploited: true } },
    ];
  return [...common, ...hosts];
}

const sortKeysOf = (sub: Subclass): (string | undefined)[] => [undefined, ...EVENT_SORT_KEYS[sub]];
const both = (c: EventsCase): EventsCase[] =>
  (['desc', 'asc'] as const).map((order) => ({
    ...c,
    label: `${c.label} ${order}`,
    body: { ...c.body, sort_order: order } as TAllEventsBody,
  }));
const body = (sub: Subclass, sortKey: string | undefined, extra: Record<string, unknown> = {}) =>
  ({ scan_subclass: sub, ...(sortKey ? { sort_key: sortKey } : {}), ...extra }) as TAllEventsBody;

/** Each sort key alone, each filter with the default order, a deep page and one scan's events. */
export function benchCases(): EventsCase[] {
  const cases: EventsCase[] = [];
  for (const sub of SUBCLASSES) {
    for (const k of sortKeysOf(sub))
      cases.push({ label: `${sub} sort ${k ?? 'default'}`, body: body(sub, k) });
    for (const f of filtersOf(sub))
      cases.push({ label: `${sub} ${f.label}`, body: body(sub, undefined, f.body) });
  }
  cases.push(
    { label: 'exploit_scanner sort name offset 5000', body: body('exploit_scanner', 'name'), offset: 5000 },
    {
      label: 'exploit_db without CVE',
      body: body('exploit_db', undefined, { vulnerabilities_existence: 'without' }),
    },
    {
      label: 'exploit_db without CVE sort last_update_ts',
      body: body('exploit_db', 'last_update_ts', { vulnerabilities_existence: 'without' }),
    },
    {
      label: 'exploit_db without CVE subdomain contains "h1"',
      body: body('exploit_db', undefined, {
        vulnerabilities_existence: 'without',
        subdomain_filter_opt: { subdomain_filter: 'h1', is_contains: true },
      }),
    },
    {
      label: 'one scan: exploit_scanner sort default',
      body: body('exploit_scanner', undefined),
      oneScan: true,
    },
    { label: 'one scan: exploit_scanner sort name', body: body('exploit_scanner', 'name'), oneScan: true },
    {
      label: 'one scan: exploit_scanner severity [critical]',
      body: body('exploit_scanner', undefined, { severity: ['critical'] }),
      oneScan: true,
    },
  );
  return cases.flatMap(both);
}

/** The sweep: every sort key (and the default) × (no filter and every filter) × both orders. */
export function sweepCases(): EventsCase[] {
  const cases: EventsCase[] = [];
  for (const sub of SUBCLASSES)
    for (const k of sortKeysOf(sub))
      for (const f of [{ label: 'no filter', body: {} }, ...filtersOf(sub)])
        cases.push({ label: `${sub} sort ${k ?? 'default'} ${f.label}`, body: body(sub, k, f.body) });
  for (const k of sortKeysOf('exploit_scanner'))
    cases.push({
      label: `one scan: exploit_scanner sort ${k ?? 'default'}`,
      body: body('exploit_scanner', k),
      oneScan: true,
    });
  return cases.flatMap(both);
}

export interface ExplainedQuery {
  sql: string;
  /** PostgreSQL's own figures for the statement: no client, network or queueing in them. */
  executionMs: number;
  planningMs: number;
  /** Shared buffers hit + read by the whole statement (8 kB pages). */
  buffers: number;
  plan: PlanNode;
}
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

/**
 * The statements the repository runs for one case, captured through Drizzle's logger and replayed
 * under EXPLAIN (ANALYZE, BUFFERS) in one transaction that is rolled back (so a `set local` the
 * repository issues applies to the statements after it, as it did).
 */
export async function explainCase(
  pool: pg.Pool,
  userId: string,
  c: EventsCase,
  scanId?: string,
  /** A memo holding the case's total: the statements of a remembered total. */
  counts?: FindingsMemo,
): Promise<ExplainedQuery[]> {
  const captured: { query: string; params: unknown[]; bitmap?: boolean }[] = [];
  const db = drizzle(pool, { logger: { logQuery: (query, params) => captured.push({ query, params }) } });
  // Database.bitmapDb's statements: explained below as its sessions plan them (plain index scans off).
  const bitmap = drizzle(pool, {
    logger: { logQuery: (query, params) => captured.push({ query, params, bitmap: true }) },
  });
  const page = { limit: EVENTS_PAGE_SIZE[c.body.scan_subclass], offset: c.offset ?? 0 };
  const one = c.oneScan ? scanId : undefined;
  if (c.body.scan_subclass === 'exploit_db' && c.body.vulnerabilities_existence === 'without')
    await listTechnologiesWithoutCve(db as never, userId, c.body, page, one);
  else await listFindings({ db: db as never, bitmapDb: bitmap as never }, userId, c.body, page, one, counts);
  const client = await pool.connect();
  const out: ExplainedQuery[] = [];
  try {
    await client.query('begin');
    for (const q of captured) {
      if (/^\s*(set|begin|commit|rollback)\b/i.test(q.query)) {
        await client.query(q.query, q.params);
        continue;
      }
      if (q.bitmap) await client.query('set local enable_indexscan = off');
      const { rows } = await client.query<{
        'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number; 'Planning Time': number }];
      }>(`explain (analyze, buffers, format json) ${q.query}`, q.params);
      if (q.bitmap) await client.query('set local enable_indexscan = on');
      const [top] = rows[0]!['QUERY PLAN'];
      out.push({
        sql: q.query,
        executionMs: top['Execution Time'],
        planningMs: top['Planning Time'],
        buffers: (top.Plan['Shared Hit Blocks'] ?? 0) + (top.Plan['Shared Read Blocks'] ?? 0),
        plan: top.Plan,
      });
    }
  } finally {
    await client.query('rollback');
    client.release();
  }
  return out;
}

/** Every node of a plan, depth first. */
export function planNodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(planNodes)];
}

/** A one-line shape of a plan: node types with their relation or index, e.g. `Limit > Index Scan(fes_user_name_idx)`. */
export function planShape(node: PlanNode): string {
  const self = `${node['Node Type']}${node['Index Name'] ? `(${node['Index Name']})` : node['Relation Name'] ? `(${node['Relation Name']})` : ''}`;
  const kids = (node.Plans ?? []).map(planShape);
  return kids.length ? `${self} > ${kids.length > 1 ? `[${kids.join(' | ')}]` : kids[0]}` : self;
}
