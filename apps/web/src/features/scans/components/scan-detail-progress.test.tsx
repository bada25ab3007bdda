import type { TScan, TScanProgress } from '@perimeter/contracts';
import { act, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { changeLanguage } from '../../../lib/i18n.ts';
import { setUpPageTests } from '../../../test/page-setup.ts';
import {
  doneRoutes,
  progress,
  renderPage,
  report,
  scan,
  stageStates,
  stubApi,
  zero,
} from '../testing/scan-detail-fixtures.tsx';
import { PROGRESS_POLL_MS } from './scan-progress.tsx';

setUpPageTests();

describe('scan detail page: progress, partial scans, messages', { timeout: 30_000 }, () => {
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
});
