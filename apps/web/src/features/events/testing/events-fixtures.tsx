import type { TEvent, TEventsPage } from '@perimeter/contracts';
import { screen } from '@testing-library/react';
import { Route, Routes, useLocation } from 'react-router';
import { vi } from 'vitest';
import { makeUser, renderApp, signedIn } from '../../../test/render.tsx';
import { EventsPage } from '../components/events-page.tsx';

/** The events page's test data, a fake API and the page in its routes (events-*.test.tsx). */
export const SCAN_ID = '7b1c3a52-9d0e-4f7a-8c11-2a4f5e6d7c8b';
export const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const lifecycle = {
  user_target_id: 't1',
  fingerprint: 'fp',
  severity: 'high' as const,
  severity_ordering: 4,
  main_domain: 'lab.test',
  status: 'open' as const,
  resolved: false,
  resolved_reason: null,
  add_ts: '2026-11-01T10:00:00Z',
  first_seen: '2026-11-01T10:00:00Z',
  last_seen: '2026-11-02T10:00:00Z',
  fixed_at: null,
};

export function vuln(
  n: number,
  extra: Partial<Extract<TEvent, { scan_subclass: 'exploit_scanner' }>> = {},
): TEvent {
  return {
    ...lifecycle,
    id: uuid(n),
    scan_subclass: 'exploit_scanner',
    template_id: 'git-config',
    name: `Exposed .git/config ${n}`,
    host: 'https://www.lab.test',
    subdomain: 'www.lab.test',
    matched_at: 'https://www.lab.test/.git/config',
    description: 'The git configuration is served.',
    impact: 'Source code and credentials can be downloaded.',
    remediation: 'Deny access to /.git in the web server.',
    references: ['https://owasp.org/git', 'javascript:alert(1)'],
    tags: ['exposure', 'git'],
    extracted: [],
    classification: { 'cwe-id': ['CWE-200'], 'cvss-score': 7.5 },
    evidence: {
      request: 'GET /.git/config HTTP/1.1\nHost: www.lab.test',
      response: 'HTTP/1.1 200 OK\n\n[core]',
      curl: "curl -sk 'https://www.lab.test/.git/config'",
    },
    ...extra,
  };
}

export function cve(
  n: number,
  extra: Partial<Extract<TEvent, { scan_subclass: 'exploit_db' }>> = {},
): TEvent {
  return {
    ...lifecycle,
    id: uuid(n),
    severity: 'critical',
    severity_ordering: 5,
    scan_subclass: 'exploit_db',
    tech: 'Apache httpd',
    version: '2.4.49',
    cve: `CVE-2021-4177${n}`,
    host: 'www.lab.test',
    subdomain: 'www.lab.test',
    port: 443,
    cvss_score: 9.8,
    cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    description: 'Path traversal.',
    info_created_ts: '2021-10-05T00:00:00Z',
    info_updated_ts: '2021-10-20T00:00:00Z',
    last_update_ts: '2026-11-01T00:00:00Z',
    last_check_ts: '2026-11-02T00:00:00Z',
    version_start: '2.4.49',
    version_end: '2.4.50',
    version_start_excluding: false,
    version_end_excluding: true,
    latest_version: '2.4.62',
    homepage: 'https://httpd.apache.org/',
    downloads_per_month: 12345,
    source_repository: 'https://github.com/apache/httpd',
    cwe: ['CWE-22'],
    references: ['https://nvd.nist.gov/vuln/detail/CVE-2021-41773'],
    kev: false,
    kev_date_added: null,
    kev_due_date: null,
    kev_ransomware: false,
    epss_score: null,
    epss_percentile: null,
    match_confidence: null,
    backport_note: null,
    package_revision: null,
    ...extra,
  };
}

export function leak(n: number, password = 'hu******23'): TEvent {
  return {
    ...lifecycle,
    id: uuid(n),
    scan_subclass: 'leakcheck',
    email: `user${n}@lab.test`,
    password,
    leak_date: '2023-04-01',
    sources: ['Collection #1', 'lab-breach'],
  };
}

export type TCall = { path: string; search: string; body: Record<string, unknown> | null };

export function stubApi(handler: (path: string, body: Record<string, unknown> | null, url: URL) => Response) {
  const calls: TCall[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (req: Request) => {
      const url = new URL(req.url);
      const text = req.method === 'POST' ? await req.text() : '';
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : null;
      calls.push({ path: url.pathname, search: url.search, body });
      return handler(url.pathname, body, url);
    }),
  );
  return calls;
}

export const page = (items: TEvent[], total = items.length, total_exact = true): Response =>
  Response.json({ data: { items, total, total_exact, details_hidden: false } satisfies TEventsPage });

function Location() {
  const location = useLocation();
  return <output data-testid="location">{`${location.pathname}${location.search}`}</output>;
}

export function renderPage(route: string) {
  const element = (
    <>
      <EventsPage />
      <Location />
    </>
  );
  return renderApp(
    <Routes>
      <Route path="/events/vulnerabilities/:scanId?" element={element} />
      <Route path="/events/cve/:scanId?" element={element} />
      <Route path="/events/leaks/:scanId?" element={element} />
    </Routes>,
    { auth: signedIn(makeUser()), route },
  );
}

export const listCalls = (calls: TCall[]) => calls.filter((c) => c.path.includes('_abstract_scan_events'));
export const lastBody = (calls: TCall[]) => listCalls(calls).at(-1)?.body;
/**
 * Every list body sent. RTK Query serves a state seen before from its cache without a request, so
 * returning to one (the default sort, the first page) is checked by "was asked", not "was asked last".
 */
export const requested = (calls: TCall[]) => listCalls(calls).map((c) => c.body);
export const location = () => screen.getByTestId('location').textContent;
export const header = (name: string) => screen.getByRole('button', { name }).closest('th');
