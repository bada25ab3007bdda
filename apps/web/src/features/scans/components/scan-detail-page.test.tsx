import type { TReport, TScan, TScanProgress, TScopeItem } from '@perimeter/contracts';
import { act, configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes } from 'react-router';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { changeLanguage } from '../../../lib/i18n.ts';
import { makeUser, renderApp, signedIn } from '../../../test/render.tsx';
import { captureDownloads } from '../testing/capture-downloads.ts';
import { ScanDetailPage } from './scan-detail-page.tsx';
import { PROGRESS_POLL_MS } from './scan-progress.tsx';
import { SCOPE_FILTER_DEBOUNCE_MS } from './scan-scope-table.tsx';

// The first render of a file pays for loading MUI; on 2 shared cores that can exceed 1 s.
beforeAll(() => configure({ asyncUtilTimeout: 5000 }));

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const ID = '0b0e5c1e-8d7a-4d53-9a51-2b1f3e1c9a01';
const PREV = '7c1f5a33-1111-4c2e-8a4f-6d2b9e0f1a22';
const zero = { critical: 0, high: 0, medium: 0, low: 0, informational: 0, unknown: 0 };

function scan(extra: Partial<TScan> = {}): TScan {
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

function progress(extra: Partial<TScanProgress>): TScanProgress {
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

const change = (id: string, name: string, severity: TReport['findings'][number]['severity']) => ({
  id,
  scan_subclass: 'exploit_scanner' as const,
  name,
  severity,
  host: 'shop.lab.test',
});

function report(extra: Partial<TReport> = {}): TReport {
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

function scopeItem(name: string): TScopeItem {
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

type TCall = { method: string; path: string; search: string; body: unknown };
type TRoutes = Record<string, (url: URL, body: unknown) => Response | Promise<Response>>;

const notFound = () => Response.json({ detail: 'Scan not found.', code: 'not_found' }, { status: 404 });

/** fetch stubbed at the HTTP boundary: one handler per API path (after /api). */
function stubApi(routes: TRoutes) {
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

const doneRoutes = (extra: TRoutes = {}): TRoutes => ({
  '/main/get_abstract_scan': () => Response.json({ data: scan() }),
  '/main/get_user_abstract_scan_progress': () =>
    Response.json({ data: progress({ status: 'done', stage: 'leaks', percent: 100, eta_seconds: null }) }),
  '/main/get_user_events_data_report': () => Response.json({ data: report() }),
  '/main/get_one_user_abstract_scan_scope': () =>
    Response.json({ data: { items: [scopeItem('shop.lab.test')], total: 1, summary: { subdomains: 1 } } }),
  ...extra,
});

function renderPage(id = ID) {
  return renderApp(
    <Routes>
      <Route path="/scans/past-scans/:scanId" element={<ScanDetailPage />} />
    </Routes>,
    { auth: signedIn(makeUser()), route: `/scans/past-scans/${id}` },
  );
}

const stageStates = () =>
  Object.fromEntries(
    screen.getAllByTestId(/^stage-/).map((el) => [el.dataset.testid?.slice(6), el.dataset.state]),
  );

describe('scan detail page', { timeout: 30_000 }, () => {
  it('shows the scan info: date and time, link, start time, duration, type, targets and status', async () => {
    stubApi(doneRoutes());
    renderPage();
    const info = await screen.findByTestId('scan-info');
    const field = (label: string) => within(info).getByText(label).nextElementSibling;
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Scan report: shop.lab.test');
    const fmt = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' });
    expect(field('Date and time')).toHaveTextContent(fmt.format(new Date('2026-11-01T09:58:00Z')));
    expect(field('Start time')).toHaveTextContent(fmt.format(new Date('2026-11-01T10:00:00Z')));
    expect(field('Duration')).toHaveTextContent('3 min 20 s');
    expect(field('Type')).toHaveTextContent('Full');
    expect(field('Targets')).toHaveTextContent('shop.lab.test');
    expect(field('Status')).toHaveTextContent('Done');
    expect(
      within(info).getByRole('link', { name: `${window.location.origin}/scans/past-scans/${ID}` }),
    ).toHaveAttribute('href', `/scans/past-scans/${ID}`);
    expect(within(info).getByRole('button', { name: 'Copy the scan link' })).toBeInTheDocument();
  });

  it('says a partial scan is partial: the status, what each cut stage skipped and why, and the template sets it ran', async () => {
    const partial: TScan['partial'] = {
      stages: [
        {
          stage: 'templates',
          status: 'stalled',
          reason: 'no progress for 120000 ms',
          planned: 130,
          ran: 120,
          skipped: [
            {
              reason: 'check failed: dns timeout after 4000 ms',
              count: 4,
              examples: ['dmarc-policy-none on shop.lab.test'],
            },
            { reason: 'not run: no progress for 120000 ms', count: 6, examples: [] },
          ],
        },
      ],
    };
    stubApi(
      doneRoutes({
        '/main/get_abstract_scan': () =>
          Response.json({
            data: scan({
              partial,
              template_sets: [
                { name: 'built-in', version: null, hash: 'a'.repeat(64), templates: 78 },
                {
                  name: 'nuclei-templates',
                  version: 'v10.2.1',
                  hash: `b1c2d3e4f5a6${'0'.repeat(52)}`,
                  templates: 9000,
                },
              ],
            }),
          }),
        '/main/get_user_abstract_scan_progress': () =>
          Response.json({
            data: progress({ status: 'done', stage: 'leaks', percent: 100, eta_seconds: null, partial }),
          }),
      }),
    );
    renderPage();
    const notice = await screen.findByTestId('scan-partial');
    expect(notice).toHaveTextContent('Partial scan: not everything planned ran');
    const stage = within(notice).getByTestId('partial-templates');
    expect(stage).toHaveTextContent(
      'Vulnerability checks: ended by the watchdog (no progress) · ran 120 of 130 (no progress for 120000 ms)',
    );
    expect(stage).toHaveTextContent(
      '4 skipped: check failed: dns timeout after 4000 ms — e.g. dmarc-policy-none on shop.lab.test',
    );
    expect(stage).toHaveTextContent('6 skipped: not run: no progress for 120000 ms');
    const info = screen.getByTestId('scan-info');
    const field = (label: string) => within(info).getByText(label).nextElementSibling;
    expect(field('Status')).toHaveTextContent('Done (partial)');
    expect(field('Template sets')).toHaveTextContent(
      'nuclei-templates v10.2.1 (b1c2d3e4f5a6, 9000 templates)',
    );
  });

  it('shows no partial notice for a scan that ran everything', async () => {
    stubApi(doneRoutes());
    renderPage();
    await screen.findByTestId('scan-info');
    await screen.findByTestId('scan-detail-progress');
    expect(screen.queryByTestId('scan-partial')).toBeNull();
    expect(within(screen.getByTestId('scan-info')).queryByText('Done (partial)')).toBeNull();
  });

  it('while a scan runs, the info panel follows the progress: status, start time; the last seconds read "under a minute"', async () => {
    stubApi({
      // The row loaded with the page is older than the progress: it still says pending, not started.
      '/main/get_abstract_scan': () =>
        Response.json({ data: scan({ status: 'pending', started_at: null, finished_at: null, percent: 0 }) }),
      '/main/get_user_abstract_scan_progress': () =>
        Response.json({
          data: progress({ status: 'running', percent: 62, stage: 'templates', eta_seconds: 2 }),
        }),
      '/main/get_user_events_data_report': () => Response.json({ data: report() }),
      '/main/get_one_user_abstract_scan_scope': () =>
        Response.json({ data: { items: [], total: 0, summary: {} } }),
    });
    renderPage();
    const info = await screen.findByTestId('scan-info');
    const field = (label: string) => within(info).getByText(label).nextElementSibling;
    await waitFor(() => expect(field('Status')).toHaveTextContent('Running'));
    const fmt = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' });
    expect(field('Start time')).toHaveTextContent(fmt.format(new Date('2026-11-01T10:00:00Z')));
    const box = await screen.findByTestId('scan-detail-progress');
    await waitFor(() =>
      expect(box).toHaveTextContent('62% · Stage: Vulnerability checks · under a minute left'),
    );
  });

  it('says why hosts were skipped from the engine code, in the user language; an uncoded reason as is', async () => {
    const running = progress({
      skipped_hosts: [
        {
          host: '127.0.0.9',
          reason: 'no open port among 12 scanned',
          code: 'no_open_port',
          params: { ports: 12 },
        },
        {
          host: 'x.lab.test',
          reason: 'plan limit',
          code: 'plan_subdomain_limit',
          params: { plan: 'Starter', subdomains: 30 },
        },
        { host: 'old.lab.test', reason: 'stored before codes' },
      ],
    });
    stubApi({
      '/main/get_abstract_scan': () =>
        Response.json({ data: scan({ status: 'running', finished_at: null, stage: 'ports', percent: 30 }) }),
      '/main/get_user_abstract_scan_progress': () => Response.json({ data: running }),
      '/main/get_user_events_data_report': () => Response.json({ data: report() }),
      '/main/get_one_user_abstract_scan_scope': () =>
        Response.json({ data: { items: [], total: 0, summary: {} } }),
    });
    renderPage();
    expect(await screen.findByText(/no open port among the 12 scanned/)).toBeInTheDocument();
    expect(screen.getByText(/the Starter plan covers 30 subdomains per scan/)).toBeInTheDocument();
    expect(screen.getByText(/stored before codes/)).toBeInTheDocument();
  });

  it('in Russian: the scan message and the skipped hosts from their codes, the plan name translated', async () => {
    await changeLanguage('ru');
    try {
      const done = progress({
        status: 'done',
        percent: 100,
        stage: null,
        skipped_hosts: [
          {
            host: 'x.lab.test',
            reason: 'plan limit',
            code: 'plan_subdomain_limit',
            params: { plan: 'Trial scan', subdomains: 30 },
          },
        ],
        message: 'Plan limit: the Trial scan plan covers 30 subdomains per scan; …',
        message_code: 'plan_subdomain_limit',
        message_params: { plan: 'Trial scan', subdomains: 30, skipped: 1 },
      });
      stubApi({
        '/main/get_abstract_scan': () => Response.json({ data: scan({ message: done.message }) }),
        '/main/get_user_abstract_scan_progress': () => Response.json({ data: done }),
        '/main/get_user_events_data_report': () => Response.json({ data: report() }),
        '/main/get_one_user_abstract_scan_scope': () =>
          Response.json({ data: { items: [], total: 0, summary: {} } }),
      });
      renderPage();
      const message = await screen.findByTestId('scan-message');
      expect(message).toHaveTextContent(
        'Ограничение тарифа: тариф «Пробное сканирование» охватывает 30 поддоменов за сканирование; просканированы первые 30 найденных, ещё 1 — нет',
      );
      expect(
        screen.getByText(/тариф «Пробное сканирование» охватывает 30 поддоменов за сканирование$/),
      ).toBeInTheDocument();
      expect(document.body).not.toHaveTextContent(/Plan limit|Trial scan/);
    } finally {
      await changeLanguage('en');
    }
  });

  it('moves the progress bar through the stages while the scan runs, without a reload, then shows it done', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let current: TScanProgress = progress({ stage: 'ports', percent: 30, eta_seconds: 240 });
    let reportCalls = 0;
    const calls = stubApi({
      '/main/get_abstract_scan': () =>
        Response.json({
          data:
            current.status === 'done'
              ? scan()
              : scan({ status: 'running', finished_at: null, stage: 'ports', percent: 30 }),
        }),
      '/main/get_user_abstract_scan_progress': () => Response.json({ data: current }),
      '/main/get_user_events_data_report': () => {
        reportCalls++;
        return Response.json({ data: report() });
      },
      '/main/get_one_user_abstract_scan_scope': () =>
        Response.json({ data: { items: [], total: 0, summary: {} } }),
    });
    renderPage();
    const box = await screen.findByTestId('scan-detail-progress');
    const bar = within(box).getByRole('progressbar', { name: 'Scan progress' });
    await waitFor(() => expect(bar).toHaveAttribute('aria-valuenow', '30'));
    expect(box).toHaveTextContent('30% · Stage: Open ports · about 4 min left');
    expect(stageStates()).toEqual({
      subdomains: 'done',
      dns: 'done',
      ports: 'active',
      http: 'waiting',
      fingerprint: 'waiting',
      templates: 'waiting',
      'cve-matching': 'waiting',
      leaks: 'waiting',
    });

    current = progress({ stage: 'templates', percent: 70, eta_seconds: 60 });
    await act(() => vi.advanceTimersByTimeAsync(PROGRESS_POLL_MS));
    await waitFor(() => expect(bar).toHaveAttribute('aria-valuenow', '70'));
    expect(box).toHaveTextContent('70% · Stage: Vulnerability checks · about 1 min left');
    expect(stageStates()).toMatchObject({
      fingerprint: 'done',
      templates: 'active',
      'cve-matching': 'waiting',
    });

    const reportsBefore = reportCalls;
    current = progress({
      status: 'done',
      stage: 'leaks',
      percent: 100,
      eta_seconds: null,
      finished_at: '2026-11-01T10:03:20Z',
    });
    await act(() => vi.advanceTimersByTimeAsync(PROGRESS_POLL_MS));
    await waitFor(() =>
      expect(within(screen.getByTestId('scan-info')).getByText('Done')).toBeInTheDocument(),
    );
    const doneBar = within(screen.getByTestId('scan-detail-progress')).getByRole('progressbar');
    expect(doneBar).toHaveAttribute('aria-valuenow', '100');
    expect(Object.values(stageStates()).every((s) => s === 'done')).toBe(true);
    // The report is read again once the scan has ended, and the polling stops.
    await waitFor(() => expect(reportCalls).toBeGreaterThan(reportsBefore));
    const polls = calls.filter((c) => c.path === '/main/get_user_abstract_scan_progress').length;
    await act(() => vi.advanceTimersByTimeAsync(PROGRESS_POLL_MS * 3));
    expect(calls.filter((c) => c.path === '/main/get_user_abstract_scan_progress').length).toBe(polls);
  });

  it('while the scan runs, the findings total and the scope chips equal the progress panel’s counts', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    // One source of truth for the fake server: the progress counts, the report and the scope agree.
    let found = { findings: 1, subdomain: 2, technology: 3 };
    const running = () => progress({ stage: 'templates', percent: 70, counts: { ...found } });
    const total = () => ({
      ...report().summary,
      total: found.findings,
      severity_counts: { ...zero, high: found.findings },
    });
    stubApi({
      '/main/get_abstract_scan': () =>
        Response.json({
          data: scan({ status: 'running', finished_at: null, stage: 'templates', percent: 70 }),
        }),
      '/main/get_user_abstract_scan_progress': () => Response.json({ data: running() }),
      '/main/get_user_events_data_report': () => Response.json({ data: report({ summary: total() }) }),
      '/main/get_one_user_abstract_scan_scope': () =>
        Response.json({
          data: {
            items: [],
            total: 0,
            summary: { subdomains: found.subdomain, technologies: found.technology },
          },
        }),
    });
    renderPage();
    await screen.findByTestId('scan-detail-progress');
    const agree = async () => {
      await waitFor(() =>
        expect(screen.getByText(/^Found so far:/)).toHaveTextContent(
          `Findings: ${found.findings} · Subdomains: ${found.subdomain} · Technologies: ${found.technology}`,
        ),
      );
      await waitFor(() =>
        expect(screen.getByTestId('findings-total')).toHaveTextContent(`Findings: ${found.findings} ·`),
      );
      await waitFor(() =>
        expect(screen.getByTestId('scope-summary')).toHaveTextContent(`Subdomains: ${found.subdomain}`),
      );
      expect(screen.getByTestId('scope-summary')).toHaveTextContent(`Technologies: ${found.technology}`);
    };
    await agree();
    // The scan finds more: within one progress poll every number on the page moves together.
    found = { findings: 4, subdomain: 5, technology: 7 };
    await act(() => vi.advanceTimersByTimeAsync(PROGRESS_POLL_MS));
    await agree();
  });

  it('filters the scope by name in the request body and pages by 20 on the server', async () => {
    const calls = stubApi(
      doneRoutes({
        '/main/get_one_user_abstract_scan_scope': (url, body) => {
          const offset = Number(url.searchParams.get('offset'));
          const filter = (body as { name_filter_opt?: { name_filter: string } }).name_filter_opt?.name_filter;
          const prefix = filter ? `${filter}-` : 'host-';
          return Response.json({
            data: {
              items: [scopeItem(`${prefix}${offset}.lab.test`)],
              total: filter ? 1 : 45,
              summary: { subdomains: 45, ip_addresses: 3, opened_ports: 7, technologies: 4, emails: 2 },
            },
          });
        },
      }),
    );
    const scopeCalls = () => calls.filter((c) => c.path === '/main/get_one_user_abstract_scan_scope');
    const user = userEvent.setup();
    renderPage();
    const row = await screen.findByTestId('scope-host-0.lab.test');
    expect(
      within(row)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toEqual([
      'host-0.lab.testSubdomain',
      '127.0.0.10',
      '80, 443',
      'nginx 1.18.0',
      'admin@host-0.lab.test',
      'High',
      '2',
    ]);
    expect(screen.getByTestId('scope-summary')).toHaveTextContent(
      'Subdomains: 45IP addresses: 3Opened ports: 7Technologies: 4E-mails: 2',
    );
    expect(scopeCalls()[0]).toMatchObject({
      method: 'POST',
      search: '?limit=20&offset=0',
      body: { id: ID, targets_type: 'domain', sort_order: 'desc' },
    });
    expect(screen.getByText('1–20 of 45')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: /next page/i }));
    expect(await screen.findByTestId('scope-host-20.lab.test')).toBeInTheDocument();
    expect(scopeCalls().at(-1)?.search).toBe('?limit=20&offset=20');

    await user.type(screen.getByRole('searchbox', { name: 'Filter by name' }), 'api');
    expect(await screen.findByTestId('scope-api-0.lab.test', {}, { timeout: 2000 })).toBeInTheDocument();
    // Typing settles first: one request for the whole word, back on the first page.
    const filtered = scopeCalls().filter((c) => (c.body as { name_filter_opt?: unknown }).name_filter_opt);
    expect(filtered).toHaveLength(1);
    expect(filtered[0]).toMatchObject({
      search: '?limit=20&offset=0',
      body: { id: ID, name_filter_opt: { name_filter: 'api', is_contains: true } },
    });
    expect(SCOPE_FILTER_DEBOUNCE_MS).toBeGreaterThan(0);

    await user.clear(screen.getByRole('searchbox', { name: 'Filter by name' }));
    expect(await screen.findByTestId('scope-host-0.lab.test', {}, { timeout: 2000 })).toBeInTheDocument();
    // The unfiltered first page comes back (from the cache: no request carries a filter but the one).
    expect(screen.getByText('1–20 of 45')).toBeInTheDocument();
    expect(
      scopeCalls().filter((c) => (c.body as { name_filter_opt?: unknown }).name_filter_opt),
    ).toHaveLength(1);
  });

  it('summarises the findings by severity and what changed since the previous scan, with links to the events tabs', async () => {
    const calls = stubApi(doneRoutes());
    renderPage();
    const severity = await screen.findByTestId('severity-summary');
    expect(severity).toHaveTextContent('Critical: 1');
    expect(severity).toHaveTextContent('High: 2');
    expect(severity).toHaveTextContent('Low: 4');
    expect(screen.getByText('Findings: 7 · Hosts: 3')).toBeInTheDocument();
    expect(calls.find((c) => c.path === '/main/get_user_events_data_report')?.search).toBe(`?id=${ID}`);

    const added = screen.getByTestId('changes-new');
    expect(within(added).getByRole('heading')).toHaveTextContent('New: 2');
    expect(added).toHaveTextContent('Exposed .git directory');
    expect(added).toHaveTextContent('Directory listing');
    const fixed = screen.getByTestId('changes-fixed');
    expect(within(fixed).getByRole('heading')).toHaveTextContent('Fixed: 1');
    expect(fixed).toHaveTextContent('Default admin password');
    expect(screen.getByTestId('changes-regressed')).toHaveTextContent('Came back: 0None.');
    expect(screen.getByRole('link', { name: 'the previous scan of these targets' })).toHaveAttribute(
      'href',
      `/scans/past-scans/${PREV}`,
    );

    expect(screen.getByRole('link', { name: 'Vulnerabilities (5)' })).toHaveAttribute(
      'href',
      `/events/vulnerabilities/${ID}`,
    );
    expect(screen.getByRole('link', { name: 'Known exploits (2)' })).toHaveAttribute(
      'href',
      `/events/cve/${ID}`,
    );
    expect(screen.getByRole('link', { name: 'Leaks (0)' })).toHaveAttribute('href', `/events/leaks/${ID}`);
    expect(screen.queryByTestId('report-restricted')).toBeNull();
  });

  it('says when there is no previous scan to compare with', async () => {
    stubApi(
      doneRoutes({
        '/main/get_user_events_data_report': () =>
          Response.json({
            data: report({ changes: { previous_scan_id: null, new: [], fixed: [], regressed: [] } }),
          }),
      }),
    );
    renderPage();
    expect(await screen.findByTestId('changes-first')).toHaveTextContent(
      'This is the first finished scan of these targets',
    );
    expect(screen.queryByTestId('changes-new')).toBeNull();
  });

  it('downloads PDF, CSV and JSON under the file name the server gives', async () => {
    const names: Record<string, string> = {
      pdf: `attachment; filename="perimeter-report-shop.pdf"`,
      csv: `attachment; filename="fallback.csv"; filename*=UTF-8''perimeter-report-%D0%BC%D0%B0%D0%B3%D0%B0%D0%B7%D0%B8%D0%BD.csv`,
      json: `attachment; filename="perimeter-report-shop-2026-11-01.json"`,
    };
    const calls = stubApi(
      doneRoutes({
        '/main/get_user_events_file_report': (_url, body) => {
          const format = (body as { format: string }).format;
          return new Response(`file ${format}`, {
            headers: {
              'content-type': 'application/octet-stream',
              'content-disposition': names[format] ?? '',
            },
          });
        },
      }),
    );
    const saved = captureDownloads();
    const user = userEvent.setup();
    renderPage();
    const group = await screen.findByRole('group', { name: 'Download the report' });
    await user.click(within(group).getByRole('button', { name: 'CSV' }));
    await waitFor(() => expect(saved).toEqual(['perimeter-report-магазин.csv']));
    await user.click(within(group).getByRole('button', { name: 'PDF' }));
    await user.click(within(group).getByRole('button', { name: 'JSON' }));
    await waitFor(() =>
      expect(saved).toEqual([
        'perimeter-report-магазин.csv',
        'perimeter-report-shop.pdf',
        'perimeter-report-shop-2026-11-01.json',
      ]),
    );
    expect(calls.filter((c) => c.path === '/main/get_user_events_file_report').map((c) => c.body)).toEqual([
      { id: ID, format: 'csv', options: { language: 'en' } },
      { id: ID, format: 'pdf', options: { language: 'en' } },
      { id: ID, format: 'json', options: { language: 'en' } },
    ]);
  });

  it('tells when a report download fails', async () => {
    stubApi(
      doneRoutes({
        '/main/get_user_events_file_report': () =>
          Response.json({ detail: 'Rendering failed.', code: 'odd' }, { status: 500 }),
      }),
    );
    const saved = captureDownloads();
    const user = userEvent.setup();
    const { store } = renderPage();
    await user.click(await screen.findByRole('button', { name: 'PDF' }));
    await waitFor(() =>
      expect(store.getState().snackbar.message).toBe('The report could not be downloaded. Rendering failed.'),
    );
    expect(saved).toEqual([]);
  });

  it('shows the restricted-plan state: what is hidden and which plans unlock it', async () => {
    stubApi(
      doneRoutes({
        '/main/get_user_events_data_report': () =>
          Response.json({
            data: report({
              plan: 'trial_scan',
              restricted: {
                hidden: ['finding_details', 'cve_details', 'leak_details'],
                message: 'Part of this report is hidden on the trial plan.',
                unlock_plans: ['try_it', 'starter', 'business', 'enterprise'],
              },
            }),
          }),
      }),
    );
    renderPage();
    const notice = await screen.findByTestId('report-restricted');
    expect(notice).toHaveTextContent('Part of this report is hidden');
    expect(
      within(notice)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual([
      'the details of each finding (description, impact, how to resolve, how to reproduce, web references, classification)',
      'the description, CVSS vector, weaknesses and references of each known-exploit match',
      'the passwords and sources of leaked credentials',
    ]);
    expect(notice).toHaveTextContent(
      'The full report comes with these plans: Try it!, Starter, Business, Enterprise.',
    );
    expect(within(notice).getByRole('link', { name: 'Choose a plan' })).toHaveAttribute(
      'href',
      '/account/plan/choose-plan',
    );
    // What was found stays visible.
    expect(screen.getByTestId('severity-summary')).toHaveTextContent('Critical: 1');
  });

  it("shows a clear not-found state for an unknown or another user's scan", async () => {
    const calls = stubApi({ '/main/get_abstract_scan': notFound });
    renderPage();
    const box = await screen.findByTestId('scan-not-found');
    expect(box).toHaveTextContent('Scan not found');
    expect(within(box).getByRole('link', { name: 'Back to reports' })).toHaveAttribute(
      'href',
      '/scans/past-scans',
    );
    expect(calls.map((c) => c.path)).toEqual(['/main/get_abstract_scan']);
    expect(screen.queryByTestId('scan-info')).toBeNull();
  });

  it('treats an address that is not a scan id (400 from the server) as not found', async () => {
    stubApi({
      '/main/get_abstract_scan': () =>
        Response.json({ detail: 'Not a valid scan id.', code: 'validation_error' }, { status: 400 }),
    });
    renderPage('not-a-scan');
    expect(await screen.findByTestId('scan-not-found')).toHaveTextContent('Scan not found');
  });

  it('shows a load error with a retry for other failures', async () => {
    let fail = true;
    stubApi(
      doneRoutes({
        '/main/get_abstract_scan': () =>
          fail
            ? Response.json({ detail: 'Broken.', code: 'odd' }, { status: 502 })
            : Response.json({ data: scan() }),
      }),
    );
    const user = userEvent.setup();
    renderPage();
    expect(await screen.findByText(/The scan could not be loaded\. Broken\./)).toBeInTheDocument();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByTestId('scan-info')).toBeInTheDocument();
  });

  it('starts a created scan from the page; nothing else is asked before it runs', async () => {
    let status: TScan['status'] = 'created';
    const calls = stubApi({
      '/main/get_abstract_scan': () =>
        Response.json({
          data: scan({ status, started_at: null, finished_at: null, percent: 0 }),
        }),
      '/main/start_created_abstract_scan': (_url, body) => {
        status = 'pending';
        return Response.json({ data: scan({ id: (body as { id: string }).id, status: 'pending' }) });
      },
      '/main/get_user_abstract_scan_progress': () =>
        Response.json({ data: progress({ status: 'pending', stage: null, percent: 0 }) }),
      '/main/get_user_events_data_report': () => Response.json({ data: report() }),
      '/main/get_one_user_abstract_scan_scope': () =>
        Response.json({ data: { items: [], total: 0, summary: {} } }),
    });
    const user = userEvent.setup();
    renderPage();
    expect(await screen.findByText(/The scan has not been started yet/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'PDF' })).toBeNull();
    expect(calls.map((c) => c.path)).toEqual(['/main/get_abstract_scan']);
    await user.click(screen.getByRole('button', { name: 'Start' }));
    await waitFor(() =>
      expect(within(screen.getByTestId('scan-info')).getByText('Pending')).toBeInTheDocument(),
    );
    expect(calls.find((c) => c.path === '/main/start_created_abstract_scan')?.body).toEqual({ id: ID });
    expect(await screen.findByText('Waiting for a worker')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Cancel' })).toBeInTheDocument();
  });
});
