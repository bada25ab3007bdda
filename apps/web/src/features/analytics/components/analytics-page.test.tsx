import type { TTarget, TTargetMetrics } from '@perimeter/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeUser, renderApp, signedIn } from '../../../test/render.tsx';
import { AnalyticsPage } from './analytics-page.tsx';

afterEach(() => vi.unstubAllGlobals());

const zero = { critical: 0, high: 0, medium: 0, low: 0, informational: 0, unknown: 0 };
const T1 = '11111111-1111-4111-8111-111111111111';
const T2 = '22222222-2222-4222-8222-222222222222';

function target(id: string, name: string): TTarget {
  return {
    user_target_id: id,
    target_type: 'domain',
    target: name,
    display_name: name,
    main_domain: name,
    ip_count: 1,
    disabled: false,
    verified: true,
    verified_at: null,
    created_at: '2026-01-01T00:00:00Z',
  };
}

function metrics(overrides: Partial<TTargetMetrics> = {}): TTargetMetrics {
  return {
    days: 90,
    from: '2026-08-24',
    to: '2026-11-21',
    targets: [],
    new_vs_fixed: [
      { date: '2026-11-20', new: 4, fixed: 0 },
      { date: '2026-11-21', new: 1, fixed: 3 },
    ],
    severity_timeline: [
      { date: '2026-11-20', findings: { ...zero, critical: 1, high: 3 } },
      { date: '2026-11-21', findings: { ...zero, high: 2 } },
    ],
    by_class: [
      { subclass: 'exploit_scanner', findings: { ...zero, critical: 1, high: 1 }, total: 2 },
      { subclass: 'exploit_db', findings: { ...zero, medium: 3 }, total: 3 },
      { subclass: 'leakcheck', findings: { ...zero, high: 1 }, total: 1 },
    ],
    top_technologies: [
      { name: 'nginx', hosts: 7 },
      { name: 'jQuery', hosts: 2 },
    ],
    open_ports: [
      { port: 443, hosts: 9 },
      { port: 22, hosts: 1 },
    ],
    leak_sources: [{ source: 'Combo 2021', leaks: 5 }],
    ...overrides,
  };
}

const emptyMetrics = () =>
  metrics({
    new_vs_fixed: [{ date: '2026-11-21', new: 0, fixed: 0 }],
    severity_timeline: [],
    by_class: [
      { subclass: 'exploit_scanner', findings: zero, total: 0 },
      { subclass: 'exploit_db', findings: zero, total: 0 },
      { subclass: 'leakcheck', findings: zero, total: 0 },
    ],
    top_technologies: [],
    open_ports: [],
    leak_sources: [],
  });

function stubApi(
  onMetrics: (url: URL) => Response,
  targets = { domain: [target(T1, 'one.example'), target(T2, 'two.example')], peer: [], network: [] },
) {
  const calls: URL[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (req: Request) => {
      const url = new URL(req.url);
      calls.push(url);
      if (url.pathname.endsWith('/main/get_target_metrics')) return onMetrics(url);
      if (url.pathname.endsWith('/main/user_target/get_targets')) return Response.json({ data: targets });
      return Response.json({ detail: 'no', code: 'not_found' }, { status: 404 });
    }),
  );
  return calls.filter.bind(calls);
}

const metricCalls = (filter: ReturnType<typeof stubApi>) =>
  filter((u) => u.pathname.endsWith('/main/get_target_metrics')).map((u) => u.searchParams.toString());

describe('analytics page', () => {
  it('draws every chart from the metrics and reads each as a table', async () => {
    const filter = stubApi(() => Response.json({ data: metrics() }));
    const user = userEvent.setup();
    renderApp(<AnalyticsPage />, { route: '/analytics', auth: signedIn(makeUser()) });
    // The first import of x-charts can take seconds on a busy machine.
    const timeline = await screen.findByTestId('chart-severity-timeline', {}, { timeout: 15_000 });
    await waitFor(() => expect(within(timeline).getAllByText('Critical').length).toBeGreaterThan(0));
    expect(within(timeline).getAllByText('High').length).toBeGreaterThan(0);
    // Only the severities that occur get a series.
    expect(within(timeline).queryByText('Low')).toBeNull();
    expect(within(screen.getByTestId('chart-new-vs-fixed')).getAllByText('Fixed').length).toBeGreaterThan(0);
    expect(
      within(screen.getByTestId('chart-by-class')).getAllByText('Known exploits (CVE)').length,
    ).toBeGreaterThan(0);
    expect(within(screen.getByTestId('chart-technologies')).getAllByText('nginx').length).toBeGreaterThan(0);
    expect(within(screen.getByTestId('chart-ports')).getAllByText('443').length).toBeGreaterThan(0);
    expect(
      within(screen.getByTestId('chart-leak-sources')).getAllByText('Combo 2021').length,
    ).toBeGreaterThan(0);
    expect(screen.getByTestId('analytics-range')).toHaveTextContent('Aug 24, 2026 – Nov 21, 2026');
    expect(metricCalls(filter)).toEqual(['days=90']);

    const tech = screen.getByTestId('chart-technologies');
    await user.click(within(tech).getByRole('button', { name: 'Show as table' }));
    expect(within(tech).getByRole('button', { name: 'Show as table' })).toHaveAttribute(
      'aria-pressed',
      'true',
    );
    const table = within(tech).getByRole('table', { name: 'Top technologies' });
    expect(
      within(table)
        .getAllByRole('row')
        .map((r) => r.textContent),
    ).toEqual(['TechnologyHosts', 'nginx7', 'jQuery2']);
  }, 30_000);

  it('asks for the chosen period and target and keeps them in the address', async () => {
    const filter = stubApi((url) =>
      Response.json({ data: metrics({ days: Number(url.searchParams.get('days') ?? 90) }) }),
    );
    const user = userEvent.setup();
    renderApp(<AnalyticsPage />, { route: '/analytics', auth: signedIn(makeUser()) });
    await screen.findByTestId('chart-by-class', {}, { timeout: 15_000 });

    await user.click(screen.getByRole('combobox', { name: 'Period' }));
    await user.click(await screen.findByRole('option', { name: 'Last 30 days' }));
    await waitFor(() => expect(metricCalls(filter)).toContain('days=30'));

    await user.click(screen.getByRole('combobox', { name: 'Target' }));
    await user.click(await screen.findByRole('option', { name: 'two.example' }));
    await waitFor(() => expect(metricCalls(filter)).toContain(`days=30&user_target_id=${T2}`));
    expect(screen.getByRole('combobox', { name: 'Target' })).toHaveTextContent('two.example');

    await user.click(screen.getByRole('combobox', { name: 'Target' }));
    await user.click(await screen.findByRole('option', { name: 'All targets' }));
    // Back to every target: the cached answer for days=30 is shown again.
    await waitFor(() =>
      expect(screen.getByRole('combobox', { name: 'Target' })).toHaveTextContent('All targets'),
    );
    expect(metricCalls(filter)).toEqual(['days=90', 'days=30', `days=30&user_target_id=${T2}`]);
  }, 30_000);

  it('opens on the period and target of the address', async () => {
    const filter = stubApi(() => Response.json({ data: metrics() }));
    renderApp(<AnalyticsPage />, { route: `/analytics?days=7&target=${T1}`, auth: signedIn(makeUser()) });
    await screen.findByTestId('chart-by-class', {}, { timeout: 15_000 });
    expect(metricCalls(filter)).toEqual([`days=7&user_target_id=${T1}`]);
    expect(screen.getByRole('combobox', { name: 'Period' })).toHaveTextContent('Last 7 days');
    expect(screen.getByRole('combobox', { name: 'Target' })).toHaveTextContent('one.example');
  }, 30_000);

  it('says so in each chart when the period has no data', async () => {
    stubApi(() => Response.json({ data: emptyMetrics() }));
    renderApp(<AnalyticsPage />, { route: '/analytics', auth: signedIn(makeUser()) });
    for (const id of [
      'chart-severity-timeline',
      'chart-new-vs-fixed',
      'chart-by-class',
      'chart-technologies',
      'chart-ports',
      'chart-leak-sources',
    ]) {
      expect(await screen.findByTestId(`${id}-empty`, {}, { timeout: 15_000 })).toBeInTheDocument();
    }
    expect(screen.getByText('No leaked credentials were found in this period.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Show as table' })).toBeNull();
  }, 30_000);

  it('leads a user without targets to add one', async () => {
    stubApi(() => Response.json({ data: emptyMetrics() }), { domain: [], peer: [], network: [] });
    renderApp(<AnalyticsPage />, { route: '/analytics', auth: signedIn(makeUser()) });
    const empty = await screen.findByTestId('analytics-no-targets');
    expect(within(empty).getByRole('link', { name: 'Add a target' })).toHaveAttribute('href', '/scans');
  });

  it('shows the server error for a target that is gone and goes back to all targets', async () => {
    const filter = stubApi((url) =>
      url.searchParams.has('user_target_id')
        ? Response.json({ detail: 'Target not found.', code: 'weird_code' }, { status: 404 })
        : Response.json({ data: metrics() }),
    );
    const user = userEvent.setup();
    renderApp(<AnalyticsPage />, {
      route: '/analytics?target=33333333-3333-4333-8333-333333333333',
      auth: signedIn(makeUser()),
    });
    expect(await screen.findByText('Target not found.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'All targets' }));
    expect(await screen.findByTestId('chart-by-class', {}, { timeout: 15_000 })).toBeInTheDocument();
    expect(metricCalls(filter).at(-1)).toBe('days=90');
  }, 30_000);
});
