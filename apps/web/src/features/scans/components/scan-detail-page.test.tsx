import type { TScan } from '@perimeter/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { setUpPageTests } from '../../../test/page-setup.ts';
import { captureDownloads } from '../testing/capture-downloads.ts';
import {
  doneRoutes,
  ID,
  notFound,
  PREV,
  progress,
  renderPage,
  report,
  scan,
  scopeItem,
  stubApi,
} from '../testing/scan-detail-fixtures.tsx';
import { SCOPE_FILTER_DEBOUNCE_MS } from './scan-scope-table.tsx';

setUpPageTests();

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

  it('says what the counts cannot show: leak check not configured, a stale CVE database', async () => {
    const base = report();
    stubApi(
      doneRoutes({
        '/main/get_user_events_data_report': () =>
          Response.json({
            data: report({
              summary: { ...base.summary, notices: ['leak_check_not_configured', 'cve_database_stale'] },
            }),
          }),
      }),
    );
    renderPage();
    expect(await screen.findByTestId('notice-leak_check_not_configured')).toHaveTextContent(
      'Leak check not configured',
    );
    expect(screen.getByTestId('notice-cve_database_stale')).toHaveTextContent(
      'The CVE database was out of date when this scan ran',
    );
    // Not "Leaks (0)": nothing was checked.
    expect(screen.getByRole('link', { name: 'Leaks: not configured' })).toHaveAttribute(
      'href',
      `/events/leaks/${ID}`,
    );
    expect(screen.queryByRole('link', { name: 'Leaks (0)' })).toBeNull();
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
    renderPage();
    await user.click(await screen.findByRole('button', { name: 'PDF' }));
    expect(
      await screen.findByText('The report could not be downloaded. Rendering failed.'),
    ).toBeInTheDocument();
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
