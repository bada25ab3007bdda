import type { TScan, TScanProgress, TTarget } from '@perimeter/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes, useLocation } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeUser, renderApp, signedIn } from '../../../test/render.tsx';
import { captureDownloads } from '../testing/capture-downloads.ts';
import { PastScansPage } from './past-scans-page.tsx';

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const zero = { critical: 0, high: 0, medium: 0, low: 0, informational: 0, unknown: 0 };

function scan(id: string, status: TScan['status'], extra: Partial<TScan> = {}): TScan {
  return {
    id,
    status,
    target_type: 'domain',
    targets: [{ user_target_id: 't1', target: `${id}.lab.test`, target_type: 'domain' }],
    scan_type: 'full',
    custom_scan_config: false,
    config: { classes: [], subclasses: [] },
    created_at: '2026-11-01T10:00:00Z',
    started_at: null,
    finished_at: null,
    stage: null,
    percent: 0,
    message: null,
    severity_counts: zero,
    partial: null,
    template_sets: [],
    ...extra,
  };
}

function progress(id: string, extra: Partial<TScanProgress>): TScanProgress {
  return {
    id,
    status: 'running',
    stage: 'ports',
    percent: 10,
    counts: {},
    eta_seconds: 120,
    skipped_hosts: [],
    partial: null,
    started_at: '2026-11-01T10:00:00Z',
    finished_at: null,
    updated_at: '2026-11-01T10:00:00Z',
    message: null,
    ...extra,
  };
}

type THandler = (url: URL, req: Request) => Response | Promise<Response>;

function stubApi(handler: THandler) {
  const calls: string[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (req: Request) => {
      const url = new URL(req.url);
      calls.push(`${req.method} ${url.pathname}${url.search}`);
      return handler(url, req);
    }),
  );
  return calls;
}

function Location() {
  const location = useLocation();
  return <output data-testid="location">{location.search}</output>;
}

function renderPage(route = '/scans/past-scans') {
  return renderApp(
    <Routes>
      <Route
        path="/scans/past-scans"
        element={
          <>
            <PastScansPage />
            <Location />
          </>
        }
      />
    </Routes>,
    { auth: signedIn(makeUser()), route },
  );
}

const listCalls = (calls: string[]) => calls.filter((c) => c.includes('get_user_abstract_scans_stats'));

describe('reports page (past scans)', () => {
  it('asks the server for a page of 10 sorted by creation, then follows sorting, filters and paging in the address', async () => {
    const calls = stubApi((url) => {
      if (url.pathname.endsWith('/main/get_user_abstract_scans_stats')) {
        const offset = Number(url.searchParams.get('offset'));
        return Response.json({
          data: { items: [scan(`s${offset}`, 'done'), scan(`t${offset}`, 'canceled')], total: 23 },
        });
      }
      return Response.json({ detail: 'no', code: 'not_found' }, { status: 404 });
    });
    const user = userEvent.setup();
    renderPage();
    expect(await screen.findByText('s0.lab.test')).toBeInTheDocument();
    expect(screen.getByTestId('status-done')).toHaveTextContent('Done');
    expect(screen.getByTestId('status-canceled')).toHaveTextContent('Canceled');
    expect(screen.getByText('s0.lab.test').closest('a')).toHaveAttribute('href', '/scans/past-scans/s0');
    expect(listCalls(calls)[0]).toBe(
      'GET /api/main/get_user_abstract_scans_stats?limit=10&offset=0&targets_type=domain&sort_key=created_at&sort_order=desc',
    );

    await user.click(screen.getByRole('button', { name: 'Start time' }));
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('?sort=started_at'));
    await waitFor(() => expect(listCalls(calls).at(-1)).toContain('sort_key=started_at&sort_order=desc'));
    await user.click(screen.getByRole('button', { name: 'Start time' }));
    await waitFor(() => expect(listCalls(calls).at(-1)).toContain('sort_key=started_at&sort_order=asc'));

    await user.click(screen.getByRole('combobox', { name: 'Status' }));
    await user.click(await screen.findByRole('option', { name: 'Running' }));
    await waitFor(() => expect(listCalls(calls).at(-1)).toContain('&status=running&'));
    expect(screen.getByTestId('location')).toHaveTextContent('?status=running&sort=started_at&order=asc');

    await user.click(screen.getByRole('combobox', { name: 'Scan type' }));
    await user.click(await screen.findByRole('option', { name: 'Custom' }));
    await waitFor(() => expect(listCalls(calls).at(-1)).toContain('&custom_scan_config=true&'));
    expect(screen.getByTestId('location')).toHaveTextContent(
      '?status=running&kind=custom&sort=started_at&order=asc',
    );

    await user.click(screen.getByRole('button', { name: 'Peers' }));
    await waitFor(() => expect(listCalls(calls).at(-1)).toContain('targets_type=peer'));

    await user.click(screen.getByRole('button', { name: /next page/i }));
    await waitFor(() => expect(listCalls(calls).at(-1)).toContain('offset=10'));
    expect(await screen.findByText('s10.lab.test')).toBeInTheDocument();
    expect(screen.getByText('11–20 of 23')).toBeInTheDocument();
  }, 30_000);

  it('reads its state from the address on load', async () => {
    const calls = stubApi(() => Response.json({ data: { items: [scan('a', 'done')], total: 31 } }));
    renderPage('/scans/past-scans?page=2&type=network&status=done&sort=finished_at&order=asc');
    expect(await screen.findByText('a.lab.test')).toBeInTheDocument();
    expect(listCalls(calls)[0]).toBe(
      'GET /api/main/get_user_abstract_scans_stats?limit=10&offset=20&targets_type=network&status=done&sort_key=finished_at&sort_order=asc',
    );
  });

  it('starts a created scan and cancels a running one, then shows the new statuses', async () => {
    const statuses: Record<string, TScan['status']> = { c1: 'created', r1: 'running' };
    const posted: unknown[] = [];
    stubApi(async (url, req) => {
      if (url.pathname.endsWith('/main/get_user_abstract_scans_stats'))
        return Response.json({
          data: {
            items: [scan('c1', statuses.c1 ?? 'created'), scan('r1', statuses.r1 ?? 'running')],
            total: 2,
          },
        });
      if (url.pathname.endsWith('/main/get_user_abstract_scan_progress'))
        return Response.json({ data: progress('r1', { status: statuses.r1 ?? 'running' }) });
      if (url.pathname.endsWith('/main/start_created_abstract_scan')) {
        const body = (await req.json()) as { id: string };
        posted.push(['start', body]);
        statuses[body.id] = 'pending';
        return Response.json({ data: scan(body.id, 'pending') });
      }
      if (url.pathname.endsWith('/main/cancel_running_abstract_scan')) {
        const body = (await req.json()) as { id: string };
        posted.push(['cancel', body]);
        statuses[body.id] = 'canceled';
        return Response.json({ data: scan(body.id, 'canceled') });
      }
      return Response.json({ detail: 'no', code: 'not_found' }, { status: 404 });
    });
    const user = userEvent.setup();
    renderPage();
    const created = await screen.findByTestId('scan-c1');
    const running = screen.getByTestId('scan-r1');
    expect(within(running).queryByRole('button', { name: 'Start' })).toBeNull();
    expect(within(created).queryByRole('button', { name: 'Cancel' })).toBeNull();

    await user.click(within(created).getByRole('button', { name: 'Start' }));
    await waitFor(() =>
      expect(within(screen.getByTestId('scan-c1')).getByText('Pending')).toBeInTheDocument(),
    );
    await user.click(within(screen.getByTestId('scan-r1')).getByRole('button', { name: 'Cancel' }));
    // Cancelling asks first: "Keep scanning" sends nothing.
    const ask = await screen.findByRole('dialog', { name: 'Cancel this scan?' });
    await user.click(within(ask).getByRole('button', { name: 'Keep scanning' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(posted).toEqual([['start', { id: 'c1' }]]);
    await user.click(within(screen.getByTestId('scan-r1')).getByRole('button', { name: 'Cancel' }));
    const confirm = await screen.findByRole('dialog', { name: 'Cancel this scan?' });
    await user.click(within(confirm).getByRole('button', { name: 'Cancel scan' }));
    await waitFor(() =>
      expect(within(screen.getByTestId('scan-r1')).getByText('Canceled')).toBeInTheDocument(),
    );
    expect(posted).toEqual([
      ['start', { id: 'c1' }],
      ['cancel', { id: 'r1' }],
    ]);
  });

  it('polls the progress of a running scan and shows its stage, percent and time left without a reload', async () => {
    let percent = 10;
    let stage = 'ports';
    stubApi((url) => {
      if (url.pathname.endsWith('/main/get_user_abstract_scans_stats'))
        return Response.json({ data: { items: [scan('r1', 'running', { percent: 5 })], total: 1 } });
      if (url.pathname.endsWith('/main/get_user_abstract_scan_progress'))
        return Response.json({ data: progress('r1', { percent, stage, eta_seconds: 120 }) });
      return Response.json({ detail: 'no', code: 'not_found' }, { status: 404 });
    });
    renderPage();
    const bar = await screen.findByTestId('progress-r1');
    await waitFor(() => expect(bar).toHaveTextContent('10% · Stage: Open ports · about 2 min left'));
    expect(within(bar).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '10');
    percent = 60;
    stage = 'templates';
    await waitFor(() => expect(bar).toHaveTextContent('60% · Stage: Vulnerability checks'), {
      timeout: 8000,
    });
    expect(within(bar).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '60');
  }, 15_000);

  it("tells why a start was refused, with the server's reason", async () => {
    stubApi((url) => {
      if (url.pathname.endsWith('/main/get_user_abstract_scans_stats'))
        return Response.json({ data: { items: [scan('c1', 'created')], total: 1 } });
      return Response.json(
        { detail: 'example.com is not verified: publish the TXT record first.', code: 'forbidden' },
        { status: 403 },
      );
    });
    const user = userEvent.setup();
    renderPage();
    await user.click(await screen.findByRole('button', { name: 'Start' }));
    const message = await screen.findByText(
      'You are not allowed to do this. example.com is not verified: publish the TXT record first.',
    );
    expect(message.closest('.MuiAlert-root')).toHaveClass('MuiAlert-colorError');
  });

  it('shows the empty state and the error state', async () => {
    let fail = true;
    stubApi(() =>
      fail
        ? Response.json({ detail: 'Broken.', code: 'odd' }, { status: 400 })
        : Response.json({ data: { items: [], total: 0 } }),
    );
    const user = userEvent.setup();
    renderPage();
    expect(await screen.findByText(/The scans could not be loaded\. Broken\./)).toBeInTheDocument();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    const empty = await screen.findByTestId('scans-empty');
    expect(within(empty).getByRole('link', { name: 'Start a new scan' })).toHaveAttribute('href', '/scans');
  });

  it('filters by one target: the choice goes to the address and to filter_user_target_id, and back', {
    timeout: 30_000,
  }, async () => {
    const target = (id: string, name: string, type: TTarget['target_type'] = 'domain'): TTarget => ({
      user_target_id: id,
      target_type: type,
      target: name,
      display_name: name,
      main_domain: type === 'domain' ? name : null,
      ip_count: 1,
      disabled: false,
      verified: true,
      verified_at: null,
      created_at: '2026-11-01T10:00:00Z',
    });
    const targetCalls: string[] = [];
    const calls = stubApi((url) => {
      if (url.pathname.endsWith('/main/user_target/get_targets')) {
        targetCalls.push(url.search);
        return Response.json({
          data: {
            domain: [target('d1', 'shop.lab.test'), target('d2', 'blog.lab.test')],
            peer: [target('p1', '127.0.0.2', 'peer')],
            network: [],
          },
        });
      }
      if (url.pathname.endsWith('/main/get_user_abstract_scans_stats')) {
        const id = url.searchParams.get('filter_user_target_id') ?? 'all';
        return Response.json({ data: { items: [scan(`for-${id}`, 'done')], total: 1 } });
      }
      return Response.json({ detail: 'no', code: 'not_found' }, { status: 404 });
    });
    const user = userEvent.setup();
    renderPage();
    expect(await screen.findByText('for-all.lab.test')).toBeInTheDocument();
    expect(targetCalls[0]).toBe('?targets_type=domain&disabled=false');

    await user.click(screen.getByRole('combobox', { name: 'Target' }));
    const options = await screen.findAllByRole('option');
    expect(options.map((o) => o.textContent)).toEqual(['All targets', 'shop.lab.test', 'blog.lab.test']);
    await user.click(screen.getByRole('option', { name: 'blog.lab.test' }));
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('?target=d2'));
    await waitFor(() =>
      expect(listCalls(calls).at(-1)).toBe(
        'GET /api/main/get_user_abstract_scans_stats?limit=10&offset=0&targets_type=domain&filter_user_target_id=d2&filter_target_type=domain&sort_key=created_at&sort_order=desc',
      ),
    );
    expect(await screen.findByText('for-d2.lab.test')).toBeInTheDocument();

    // Another target type drops the target, which belongs to the old type.
    await user.click(screen.getByRole('button', { name: 'Peers' }));
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('?type=peer'));
    await waitFor(() => expect(listCalls(calls).at(-1)).not.toContain('filter_user_target_id'));
    await waitFor(() => expect(targetCalls.at(-1)).toBe('?targets_type=peer&disabled=false'));

    await user.click(screen.getByRole('combobox', { name: 'Target' }));
    await user.click(await screen.findByRole('option', { name: '127.0.0.2' }));
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('?type=peer&target=p1'));
    await waitFor(() =>
      expect(listCalls(calls).at(-1)).toContain(
        'targets_type=peer&filter_user_target_id=p1&filter_target_type=peer',
      ),
    );
    await user.click(screen.getByRole('combobox', { name: 'Target' }));
    await user.click(await screen.findByRole('option', { name: 'All targets' }));
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('?type=peer'));
  });

  it('reads the target filter from the address on load', async () => {
    const calls = stubApi((url) =>
      url.pathname.endsWith('/main/user_target/get_targets')
        ? Response.json({ data: { domain: [], peer: [], network: [] } })
        : Response.json({ data: { items: [scan('x', 'done')], total: 1 } }),
    );
    renderPage('/scans/past-scans?type=network&target=n9&status=done');
    expect(await screen.findByText('x.lab.test')).toBeInTheDocument();
    expect(listCalls(calls)[0]).toBe(
      'GET /api/main/get_user_abstract_scans_stats?limit=10&offset=0&targets_type=network&filter_user_target_id=n9&filter_target_type=network&status=done&sort_key=created_at&sort_order=desc',
    );
  });

  it('marks a done scan that did not run everything as partial', async () => {
    const partial: TScan['partial'] = {
      stages: [
        { stage: 'templates', status: 'timeout', reason: 'time limit', planned: 10, ran: 4, skipped: [] },
      ],
    };
    stubApi((url) =>
      url.pathname.endsWith('/main/get_user_abstract_scans_stats')
        ? Response.json({ data: { items: [scan('p1', 'done', { partial }), scan('d1', 'done')], total: 2 } })
        : Response.json({ detail: 'no', code: 'not_found' }, { status: 404 }),
    );
    renderPage();
    const cut = await screen.findByTestId('scan-p1');
    expect(within(cut).getByText('Done (partial)')).toBeInTheDocument();
    expect(within(screen.getByTestId('scan-d1')).getByText('Done')).toBeInTheDocument();
    expect(within(screen.getByTestId('scan-d1')).queryByText('Done (partial)')).toBeNull();
  });

  it('downloads the PDF of a done scan under the name the server gives, and opens a scan', async () => {
    const bodies: unknown[] = [];
    stubApi(async (url, req) => {
      if (url.pathname.endsWith('/main/get_user_abstract_scans_stats'))
        return Response.json({ data: { items: [scan('d1', 'done'), scan('r1', 'running')], total: 2 } });
      if (url.pathname.endsWith('/main/get_user_events_file_report')) {
        bodies.push(await req.json());
        return new Response('%PDF-1.7', {
          headers: {
            'content-type': 'application/pdf',
            'content-disposition': `attachment; filename="perimeter-report-d1.pdf"; filename*=UTF-8''perimeter-report-d1%C3%A9.pdf`,
          },
        });
      }
      if (url.pathname.endsWith('/main/get_user_abstract_scan_progress'))
        return Response.json({ data: progress('r1', {}) });
      return Response.json({ detail: 'no', code: 'not_found' }, { status: 404 });
    });
    const saved = captureDownloads();
    const user = userEvent.setup();
    renderPage();
    const done = await screen.findByTestId('scan-d1');
    expect(within(screen.getByTestId('scan-r1')).queryByRole('button', { name: /PDF/ })).toBeNull();
    expect(within(done).getByRole('link', { name: 'Open' })).toHaveAttribute('href', '/scans/past-scans/d1');
    await user.click(within(done).getByRole('button', { name: 'Download the PDF report of d1.lab.test' }));
    await waitFor(() => expect(saved).toEqual(['perimeter-report-d1é.pdf']));
    expect(bodies).toEqual([{ id: 'd1', format: 'pdf', options: { language: 'en' } }]);
  });
});
