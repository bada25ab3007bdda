import type { TDashboardInfo, TScan } from '@perimeter/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeUser, renderApp, signedIn } from '../../../test/render.tsx';
import { DashboardPage } from './dashboard-page.tsx';

afterEach(() => vi.unstubAllGlobals());

const zero = { critical: 0, high: 0, medium: 0, low: 0, informational: 0, unknown: 0 };

function info(overrides: Partial<TDashboardInfo> = {}): TDashboardInfo {
  return {
    targets: { total: 2, by_type: { domain: 2, peer: 0, network: 0 }, verified: 1, disabled: 0 },
    scans: {
      total: 3,
      by_status: { running: 1, pending: 0, done: 2, created: 0, canceled: 0 },
      last_scan_at: null,
    },
    open_findings: { ...zero, critical: 2, high: 5 },
    open_total: 7,
    new_vs_fixed: [],
    top_risky_hosts: [
      { host: 'www.lab.test', risk_score: 87, grade: 'F', open_findings: { ...zero, critical: 2 } },
    ],
    targets_risk: [],
    risk_score: 87,
    ...overrides,
  };
}

function scan(id: string, status: TScan['status'], created_at: string): TScan {
  return {
    id,
    status,
    target_type: 'domain',
    targets: [{ user_target_id: 't1', target: `${id}.lab.test`, target_type: 'domain' }],
    scan_type: 'full',
    custom_scan_config: false,
    config: { classes: [], subclasses: [] },
    created_at,
    started_at: null,
    finished_at: null,
    stage: null,
    percent: 40,
    message: null,
    severity_counts: zero,
    partial: null,
    template_sets: [],
  };
}

function stubApi(handlers: Record<string, () => Response>) {
  const calls: string[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (req: Request) => {
      const url = new URL(req.url);
      calls.push(`${url.pathname}${url.search}`);
      const h = Object.entries(handlers).find(([path]) => url.pathname.endsWith(path));
      return h ? h[1]() : Response.json({ detail: 'no', code: 'not_found' }, { status: 404 });
    }),
  );
  return calls;
}

describe('dashboard page', () => {
  it('shows the cards, the recent scans of the types the user has, and the riskiest hosts', async () => {
    const calls = stubApi({
      '/main/get_dashboard_info': () => Response.json({ data: info() }),
      '/main/get_user_abstract_scans_stats': () =>
        Response.json({
          data: {
            items: [scan('a', 'done', '2026-11-01T10:00:00Z'), scan('b', 'running', '2026-11-02T10:00:00Z')],
            total: 2,
          },
        }),
    });
    renderApp(<DashboardPage />, { auth: signedIn(makeUser()) });
    const findings = await screen.findByTestId('card-findings');
    expect(within(findings).getByText('7')).toBeInTheDocument();
    expect(within(findings).getByText('Critical: 2')).toBeInTheDocument();
    expect(within(screen.getByTestId('card-scans')).getByText('Running: 1')).toBeInTheDocument();
    expect(within(screen.getByTestId('card-targets')).getByText('Verified: 1')).toBeInTheDocument();
    const recent = await screen.findByTestId('recent-scans');
    const links = within(recent).getAllByRole('link');
    // Newest first, each linking to its detail.
    expect(links.map((l) => l.textContent)).toEqual(['b.lab.test', 'a.lab.test']);
    expect(links[0]).toHaveAttribute('href', '/scans/past-scans/b');
    expect(within(recent).getByText('Running')).toBeInTheDocument();
    expect(within(screen.getByTestId('risky-hosts')).getByText('www.lab.test')).toBeInTheDocument();
    expect(within(screen.getByTestId('risky-hosts')).getByText('87')).toBeInTheDocument();
    // Only domains are asked for: the user has no peers or networks.
    const listCalls = calls.filter((c) => c.includes('get_user_abstract_scans_stats'));
    expect(listCalls.length).toBeGreaterThan(0);
    expect(listCalls.every((c) => c.includes('targets_type=domain'))).toBe(true);
    expect(screen.getByText('No findings were found or fixed in the last 30 days.')).toBeInTheDocument();
  });

  it('draws new vs fixed findings over time when there is history', async () => {
    stubApi({
      '/main/get_dashboard_info': () =>
        Response.json({
          data: info({
            new_vs_fixed: [
              { date: '2026-11-20', new: 4, fixed: 0 },
              { date: '2026-11-21', new: 1, fixed: 3 },
            ],
          }),
        }),
      '/main/get_user_abstract_scans_stats': () => Response.json({ data: { items: [], total: 0 } }),
    });
    renderApp(<DashboardPage />, { auth: signedIn(makeUser()) });
    // The chart is its own lazy chunk (x-charts): its first import can take seconds on a busy machine.
    const chart = await screen.findByTestId('new-vs-fixed', {}, { timeout: 15_000 });
    await waitFor(() => expect(within(chart).getByText('Fixed')).toBeInTheDocument());
    expect(within(chart).getByText('New')).toBeInTheDocument();
    expect(screen.queryByText('No findings were found or fixed in the last 30 days.')).toBeNull();
  }, 30_000);

  it('leads a user without targets to add one', async () => {
    stubApi({
      '/main/get_dashboard_info': () =>
        Response.json({
          data: info({
            targets: { total: 0, by_type: { domain: 0, peer: 0, network: 0 }, verified: 0, disabled: 0 },
          }),
        }),
    });
    renderApp(<DashboardPage />, { auth: signedIn(makeUser()) });
    const empty = await screen.findByTestId('dashboard-empty');
    expect(within(empty).getByRole('link', { name: 'Add a target' })).toHaveAttribute('href', '/scans');
  });

  it('shows the error and retries', async () => {
    let fail = true;
    stubApi({
      '/main/get_dashboard_info': () =>
        fail
          ? Response.json({ detail: 'Database is down.', code: 'weird_code' }, { status: 400 })
          : Response.json({
              data: info({
                targets: { total: 0, by_type: { domain: 0, peer: 0, network: 0 }, verified: 0, disabled: 0 },
              }),
            }),
    });
    const user = userEvent.setup();
    renderApp(<DashboardPage />, { auth: signedIn(makeUser()) });
    expect(await screen.findByText('Database is down.')).toBeInTheDocument();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByTestId('dashboard-empty')).toBeInTheDocument();
  });
});
