import {
  type EVENT_SORT_KEYS,
  EVENTS_PAGE_SIZE,
  type RESOLVE_REASONS,
  SEVERITIES,
  SUBCLASS_OF_CLASS,
  type TAllEventsBody,
  type TScanSubclass,
  type TSeverity,
} from '@perimeter/contracts';
import { useLocation, useParams, useSearchParams } from 'react-router';
import type { TEventsArgs } from '../api/get-events.ts';

export type TResolveReason = (typeof RESOLVE_REASONS)[number];
export type TEventsTab = 'vulnerabilities' | 'cve' | 'leaks';
export const EVENTS_TABS: readonly TEventsTab[] = ['vulnerabilities', 'cve', 'leaks'];
export const SUBCLASS_OF_TAB: Record<TEventsTab, TScanSubclass> = {
  vulnerabilities: 'exploit_scanner',
  cve: 'exploit_db',
  leaks: 'leakcheck',
};

/**
 * The columns a user can sort by. `severity` and `severity_ordering` are one column: the spec maps
 * a severity sort to `severity_ordering`, which every subclass's body accepts.
 */
export const SORT_COLUMNS = {
  exploit_scanner: ['name', 'severity', 'host', 'main_domain', 'subdomain', 'add_ts'],
  exploit_db: [
    'tech',
    'version',
    'cve',
    'severity',
    'main_domain',
    'info_created_ts',
    'info_updated_ts',
    'last_update_ts',
    'last_check_ts',
    'add_ts',
    'epss_score',
  ],
  leakcheck: ['email', 'password', 'leak_date', 'main_domain', 'add_ts'],
} as const satisfies { [S in TScanSubclass]: readonly (typeof EVENT_SORT_KEYS)[S][number][] };
export type TSortColumn = (typeof SORT_COLUMNS)[TScanSubclass][number];

const DEFAULT_SORT: Record<TScanSubclass, TSortColumn> = {
  exploit_scanner: 'severity',
  exploit_db: 'severity',
  leakcheck: 'add_ts',
};

export type TMatch = 'contains' | 'equals';
export type TExistence = 'all' | 'with' | 'without';

export type TEventsState = {
  page: number;
  sort: TSortColumn;
  order: 'asc' | 'desc';
  /** Empty: every severity. */
  severity: TSeverity[];
  hideResolved: boolean;
  subdomain: string;
  subdomainMatch: TMatch;
  domain: string;
  domainMatch: TMatch;
  /** CVE tab: technologies with or without a known vulnerability. */
  vulns: TExistence;
  /** CVE tab: only CVEs in CISA's Known Exploited Vulnerabilities catalogue. */
  kev: boolean;
  /** Leaks tab. */
  email: string;
  emailMatch: TMatch;
  password: TExistence;
};

function oneOf<T extends string>(value: string | null, allowed: readonly T[], fallback: T): T {
  return allowed.includes(value as T) ? (value as T) : fallback;
}

const MATCHES: readonly TMatch[] = ['contains', 'equals'];
const EXISTENCE: readonly TExistence[] = ['all', 'with', 'without'];

export function tabOfPath(pathname: string): TEventsTab {
  const segment = pathname.split('/').filter(Boolean)[1];
  return oneOf(segment ?? null, EVENTS_TABS, 'vulnerabilities');
}

export function tabPath(tab: TEventsTab, scanId?: string): string {
  return `/events/${tab}${scanId ? `/${encodeURIComponent(scanId)}` : ''}`;
}

/** Address → state. Unknown values fall back to the defaults, so a hand-edited link still works. */
export function readState(params: URLSearchParams, subclass: TScanSubclass): TEventsState {
  const text = (key: string) => (params.get(key) ?? '').slice(0, 255);
  const severity = (params.get('severity') ?? '')
    .split(',')
    .filter((s): s is TSeverity => (SEVERITIES as readonly string[]).includes(s));
  return {
    page: Math.max(0, Number.parseInt(params.get('page') ?? '0', 10) || 0),
    sort: oneOf<TSortColumn>(params.get('sort'), SORT_COLUMNS[subclass], DEFAULT_SORT[subclass]),
    order: oneOf(params.get('order'), ['asc', 'desc'] as const, 'desc'),
    severity: SEVERITIES.filter((s) => severity.includes(s)),
    hideResolved: params.get('hide_resolved') === '1',
    subdomain: text('subdomain'),
    subdomainMatch: oneOf(params.get('subdomain_match'), MATCHES, 'contains'),
    domain: text('domain'),
    domainMatch: oneOf(params.get('domain_match'), MATCHES, 'contains'),
    vulns: subclass === 'exploit_db' ? oneOf(params.get('vulns'), EXISTENCE, 'all') : 'all',
    kev: subclass === 'exploit_db' && params.get('kev') === '1',
    email: subclass === 'leakcheck' ? text('email') : '',
    emailMatch: subclass === 'leakcheck' ? oneOf(params.get('email_match'), MATCHES, 'contains') : 'contains',
    password: subclass === 'leakcheck' ? oneOf(params.get('password'), EXISTENCE, 'all') : 'all',
  };
}

/** State → address; defaults are left out so the address stays short. */
export function writeState(s: TEventsState, subclass: TScanSubclass): URLSearchParams {
  const q = new URLSearchParams();
  if (s.page > 0) q.set('page', String(s.page));
  if (s.sort !== DEFAULT_SORT[subclass]) q.set('sort', s.sort);
  if (s.order !== 'desc') q.set('order', s.order);
  if (s.severity.length) q.set('severity', s.severity.join(','));
  if (s.hideResolved) q.set('hide_resolved', '1');
  if (s.subdomain) q.set('subdomain', s.subdomain);
  if (s.subdomainMatch !== 'contains') q.set('subdomain_match', s.subdomainMatch);
  if (s.domain) q.set('domain', s.domain);
  if (s.domainMatch !== 'contains') q.set('domain_match', s.domainMatch);
  if (subclass === 'exploit_db' && s.vulns !== 'all') q.set('vulns', s.vulns);
  if (subclass === 'exploit_db' && s.kev) q.set('kev', '1');
  if (subclass === 'leakcheck') {
    if (s.email) q.set('email', s.email);
    if (s.emailMatch !== 'contains') q.set('email_match', s.emailMatch);
    if (s.password !== 'all') q.set('password', s.password);
  }
  return q;
}

/** The filters a tab switch keeps (those every tab has); sorting, paging and tab-only filters reset. */
export function sharedFilters(s: TEventsState): URLSearchParams {
  const q = new URLSearchParams();
  if (s.severity.length) q.set('severity', s.severity.join(','));
  if (s.hideResolved) q.set('hide_resolved', '1');
  if (s.subdomain) q.set('subdomain', s.subdomain);
  if (s.subdomainMatch !== 'contains') q.set('subdomain_match', s.subdomainMatch);
  if (s.domain) q.set('domain', s.domain);
  if (s.domainMatch !== 'contains') q.set('domain_match', s.domainMatch);
  return q;
}

export function hasFilters(s: TEventsState): boolean {
  return (
    s.severity.length > 0 ||
    s.hideResolved ||
    !!s.subdomain ||
    !!s.domain ||
    s.vulns !== 'all' ||
    s.kev ||
    !!s.email ||
    s.password !== 'all'
  );
}

/** State → request body of get_all_/get_one_user_abstract_scan_events (spec §7). */
/** Spec section 7: a severity sort is sent as `severity_ordering`. */
function severityAsOrdering<K extends string>(sort: K): Exclude<K, 'severity'> | 'severity_ordering' {
  return sort === 'severity' ? 'severity_ordering' : (sort as Exclude<K, 'severity'>);
}

export function buildBody(s: TEventsState, subclass: TScanSubclass): TAllEventsBody {
  const common = {
    scan_class: SUBCLASS_OF_CLASS[subclass],
    sort_order: s.order,
    ...(s.severity.length ? { severity: s.severity } : {}),
    ...(s.hideResolved ? { hide_resolved: true } : {}),
    ...(s.subdomain
      ? {
          subdomain_filter_opt: {
            subdomain_filter: s.subdomain,
            is_contains: s.subdomainMatch === 'contains',
          },
        }
      : {}),
    ...(s.domain
      ? { main_domain_filter_opt: { domain_filter: s.domain, is_contains: s.domainMatch === 'contains' } }
      : {}),
  };
  if (subclass === 'exploit_scanner') {
    const sort = s.sort as (typeof SORT_COLUMNS.exploit_scanner)[number];
    return {
      ...common,
      scan_subclass: 'exploit_scanner',
      sort_key: severityAsOrdering(sort),
    };
  }
  if (subclass === 'exploit_db') {
    return {
      ...common,
      scan_subclass: 'exploit_db',
      sort_key: severityAsOrdering(s.sort as (typeof SORT_COLUMNS.exploit_db)[number]),
      ...(s.vulns !== 'all' ? { vulnerabilities_existence: s.vulns } : {}),
      ...(s.kev ? { known_exploited: true } : {}),
    };
  }
  return {
    ...common,
    scan_subclass: 'leakcheck',
    sort_key: s.sort as (typeof SORT_COLUMNS.leakcheck)[number],
    ...(s.password !== 'all' ? { leak_email_password: s.password === 'with' } : {}),
    ...(s.email
      ? { email_filter_opt: { email_filter: s.email, is_contains: s.emailMatch === 'contains' } }
      : {}),
  };
}

/** The events table's tab (from the path), paging, sorting and filters (in the address). */
export function useEventsParams() {
  const { pathname } = useLocation();
  const { scanId } = useParams();
  const [params, setParams] = useSearchParams();
  const tab = tabOfPath(pathname);
  const subclass = SUBCLASS_OF_TAB[tab];
  const state = readState(params, subclass);
  const pageSize = EVENTS_PAGE_SIZE[subclass];

  const update = (patch: Partial<TEventsState>) => {
    const next = { ...state, ...patch };
    // A new filter or sort starts at the first page.
    if (!('page' in patch)) next.page = 0;
    setParams(writeState(next, subclass));
  };

  const query: TEventsArgs = {
    ...(scanId ? { scanId } : {}),
    limit: pageSize,
    offset: state.page * pageSize,
    body: buildBody(state, subclass),
  };
  return { tab, subclass, scanId, state, update, query, pageSize };
}
