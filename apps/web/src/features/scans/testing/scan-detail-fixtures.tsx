import type { TReport, TScan, TScanProgress, TScopeItem } from '@perimeter/contracts';
import { screen } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { vi } from 'vitest';
import { makeUser, renderApp, signedIn } from '../../../test/render.tsx';
import { ScanDetailPage } from '../components/scan-detail-page.tsx';

/** The scan detail page's test data and a fake API (scan-detail-*.test.tsx). */
export const ID = '0b0e5c1e-8d7a-4d53-9a51-2b1f3e1c9a01';
export const PREV = '7c1f5a33-1111-4c2e-8a4f-6d2b9e0f1a22';
export const zero = { critical: 0, high: 0, medium: 0, low: 0, informational: 0, unknown: 0 };

export function scan(extra: Partial<TScan> = {}): TScan {
  return {
    id: ID,
    status: 'done',
    target_type: 'domain',
    targets: [{ user_target_id: 't1', target: 'shop.lab.test', target_type: 'domain' }],
    scan_type: 'full',
    custom_scan_config: false,
    config: { classes: [], subclasses: ['exploit_scanner', 'exploit_db', 'leakcheck'] },
    created_at: '2026-11-01T09:58:00Z',
    started_at: '2026-11-01T10:00:00Z',
    finished_at: '2026-11-01T10:03:20Z',
    stage: null,
    percent: 100,
    message: null,
    severity_counts: zero,
    partial: null,
    template_sets: [],
    ...extra,
  };
}

export function progress(extra: Partial<TScanProgress>): TScanProgress {
  return {
    id: ID,
    status: 'running',
    stage: 'ports',
    percent: 30,
    counts: {},
    eta_seconds: 240,
    skipped_hosts: [],
    partial: null,
    started_at: '2026-11-01T10:00:00Z',
    finished_at: null,
    updated_at: '2026-11-01T10:01:00Z',
    message: null,
    ...extra,
  };
}

export const change = (id: string, name: string, severity: TReport['findings'][number]['severity']) => ({
  id,
  scan_subclass: 'exploit_scanner' as const,
  name,
  severity,
  host: 'shop.lab.test',
});

export function report(extra: Partial<TReport> = {}): TReport {
  return {
    scan: {
      id: ID,
      status: 'done',
      scan_type: 'full',
      targets: [{ user_target_id: 't1', target: 'shop.lab.test', target_type: 'domain' }],
      created_at: '2026-11-01T09:58:00Z',
      started_at: '2026-11-01T10:00:00Z',
      finished_at: '2026-11-01T10:03:20Z',
      duration_seconds: 200,
      subclasses: ['exploit_scanner', 'exploit_db', 'leakcheck'],
      partial: null,
      template_sets: [],
      skipped_hosts: [],
      message: null,
    },
    generated_at: '2026-11-01T10:05:00Z',
    language: 'en',
    time_zone: 'UTC',
    plan: 'business',
    summary: {
      severity_counts: { ...zero, critical: 1, high: 2, low: 4 },
      total: 7,
      by_subclass: { exploit_scanner: 5, exploit_db: 2 },
      hosts: 3,
    },
    changes: {
      previous_scan_id: PREV,
      new: [change('f1', 'Exposed .git directory', 'high'), change('f2', 'Directory listing', 'low')],
      fixed: [change('f3', 'Default admin password', 'critical')],
      regressed: [],
    },
    findings: [],
    cves: [],
    leaks: [],
    scope: [],
    restricted: null,
    ...extra,
  };
}

export function scopeItem(name: string): TScopeItem {
  return {
    name,
    kind: 'subdomain',
    main_domain: 'lab.test',
    ip_addresses: ['127.0.0.10'],
    opened_ports: [80, 443],
    services: [],
    technologies: [{ name: 'nginx', version: '1.18.0' }],
    emails: [`admin@${name}`],
    cnames: [],
    urls: [],
    risk: 'high',
    findings: 2,
  };
}

export type TCall = { method: string; path: string; search: string; body: unknown };
export type TRoutes = Record<string, (url: URL, body: unknown) => Response | Promise<Response>>;

export const notFound = () =>
  Response.json({ detail: 'Scan not found.', code: 'not_found' }, { status: 404 });

/** fetch stubbed at the HTTP boundary: one handler per API path (after /api). */
export function stubApi(routes: TRoutes) {
  const calls: TCall[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (req: Request) => {
      const url = new URL(req.url);
      const path = url.pathname.replace(/^\/api/, '');
      const text = req.method === 'GET' ? '' : await req.text();
      const body: unknown = text ? JSON.parse(text) : null;
      calls.push({ method: req.method, path, search: url.search, body });
      const handler = routes[path];
      return handler ? handler(url, body) : notFound();
    }),
  );
  return calls;
}

export const doneRoutes = (extra: TRoutes = {}): TRoutes => ({
  '/main/get_abstract_scan': () => Response.json({ data: scan() }),
  '/main/get_user_abstract_scan_progress': () =>
    Response.json({ data: progress({ status: 'done', stage: 'leaks', percent: 100, eta_seconds: null }) }),
  '/main/get_user_events_data_report': () => Response.json({ data: report() }),
  '/main/get_one_user_abstract_scan_scope': () =>
    Response.json({ data: { items: [scopeItem('shop.lab.test')], total: 1, summary: { subdomains: 1 } } }),
  ...extra,
});

export function renderPage(id = ID) {
  return renderApp(
    <Routes>
      <Route path="/scans/past-scans/:scanId" element={<ScanDetailPage />} />
    </Routes>,
    { auth: signedIn(makeUser()), route: `/scans/past-scans/${id}` },
  );
}

export const stageStates = () =>
  Object.fromEntries(
    screen.getAllByTestId(/^stage-/).map((el) => [el.dataset.testid?.slice(6), el.dataset.state]),
  );
