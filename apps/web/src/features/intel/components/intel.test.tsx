import type { TEvent, TIntelDatabase } from '@perimeter/contracts';
import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeUser, renderApp, signedIn } from '../../../test/render.tsx';
import { EventsPage } from '../../events/index.ts';
import { ReportNotices } from './intel-notices.tsx';

configure({ asyncUtilTimeout: 5000 });
afterEach(() => {
  vi.unstubAllGlobals();
});

const database = (state: TIntelDatabase['state']): TIntelDatabase => ({
  state,
  cve_records: state === 'empty' ? 0 : 1234,
  kev_records: 0,
  epss_records: 0,
  last_success_at: state === 'empty' ? null : '2026-10-01T00:00:00Z',
  stale_after_days: 7,
  sync_scheduled: true,
});

function cve(): TEvent {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    user_target_id: 't1',
    fingerprint: 'fp',
    severity: 'medium',
    severity_ordering: 3,
    main_domain: 'lab.test',
    status: 'open',
    resolved: false,
    resolved_reason: null,
    add_ts: '2026-11-01T10:00:00Z',
    first_seen: '2026-11-01T10:00:00Z',
    last_seen: '2026-11-02T10:00:00Z',
    fixed_at: null,
    scan_subclass: 'exploit_db',
    tech: 'OpenSSH',
    version: '7.2p2',
    cve: 'CVE-2016-6210',
    host: 'ssh.lab.test',
    subdomain: 'ssh',
    port: 22,
    cvss_score: 5.9,
    cvss_vector: null,
    description: 'User enumeration.',
    info_created_ts: null,
    info_updated_ts: null,
    last_update_ts: '2026-11-01T00:00:00Z',
    last_check_ts: '2026-11-02T00:00:00Z',
    version_start: null,
    version_end: '7.2p2',
    version_start_excluding: false,
    version_end_excluding: false,
    latest_version: null,
    homepage: null,
    downloads_per_month: null,
    source_repository: null,
    cwe: [],
    references: [],
    kev: true,
    kev_date_added: '2026-01-03',
    kev_due_date: '2026-01-24',
    kev_ransomware: true,
    epss_score: 0.0512,
    epss_percentile: 0.8912,
    match_confidence: 'low',
    backport_note:
      'The banner ("SSH-2.0-OpenSSH_7.2p2 Ubuntu-4ubuntu2.10") names the Ubuntu package revision 4ubuntu2.10.',
    package_revision: '4ubuntu2.10',
  };
}

function stubApi(state: TIntelDatabase['state']) {
  const bodies: Record<string, unknown>[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (req: Request) => {
      const url = new URL(req.url);
      if (url.pathname.endsWith('/intel/database')) return Response.json({ data: database(state) });
      bodies.push(JSON.parse(await req.text()) as Record<string, unknown>);
      return Response.json({ data: { items: [cve()], total: 1, total_exact: true } });
    }),
  );
  return bodies;
}

function renderCveTab() {
  return renderApp(
    <Routes>
      <Route path="/events/cve/:scanId?" element={<EventsPage />} />
    </Routes>,
    { auth: signedIn(makeUser()), route: '/events/cve' },
  );
}

describe('vulnerability intelligence in the CVE tab', () => {
  it('an empty CVE database is said, with how to fix it — not an empty tab', async () => {
    stubApi('empty');
    renderCveTab();
    const notice = await screen.findByTestId('intel-database-notice');
    expect(notice).toHaveTextContent('The CVE database is empty');
    expect(notice).toHaveTextContent('npm run cli -- intel sync');
  });

  it('a stale one says since when; a current one says nothing', async () => {
    stubApi('stale');
    const { unmount } = renderCveTab();
    expect(await screen.findByTestId('intel-database-notice')).toHaveTextContent(
      'Its 1234 records were last updated on 2026-10-01 (stale after 7 days)',
    );
    unmount();
    stubApi('current');
    renderCveTab();
    await screen.findByText('CVE-2016-6210');
    expect(screen.queryByTestId('intel-database-notice')).toBeNull();
  });

  it('filters known exploited CVEs, sorts by EPSS, and shows KEV, EPSS and the backport note', async () => {
    const bodies = stubApi('current');
    const user = userEvent.setup();
    renderCveTab();
    const row = (await screen.findByText('CVE-2016-6210')).closest('tr') as HTMLElement;
    expect(within(row).getByText('KEV')).toBeInTheDocument();
    expect(row).toHaveTextContent('5.1%');
    await user.click(screen.getByRole('switch', { name: 'Known exploited only' }));
    await waitFor(() => expect(bodies.at(-1)).toMatchObject({ known_exploited: true }));
    await user.click(screen.getByRole('button', { name: 'EPSS' }));
    await waitFor(() =>
      expect(bodies.at(-1)).toMatchObject({ sort_key: 'epss_score', known_exploited: true }),
    );

    await user.click(screen.getByRole('button', { name: 'OpenSSH' }));
    const dialog = await screen.findByRole('dialog');
    const intel = within(dialog).getByTestId('cve-intel');
    expect(intel).toHaveTextContent('Known exploited — added 2026-01-03, fix by 2026-01-24');
    expect(intel).toHaveTextContent('Ransomware useKnown');
    expect(intel).toHaveTextContent('5.1% (percentile 89.1%)');
    expect(intel).toHaveTextContent('Low — a distribution build; the fix may be backported');
    expect(within(dialog).getByTestId('backport-note')).toHaveTextContent(
      'The banner names the distribution package revision 4ubuntu2.10',
    );
  }, 60_000);

  it('a scan summary says "leak check not configured" rather than counting 0 leaks', async () => {
    renderApp(<ReportNotices notices={['leak_check_not_configured', 'cve_database_empty']} />, {
      auth: signedIn(makeUser()),
      route: '/',
    });
    expect(await screen.findByTestId('notice-leak_check_not_configured')).toHaveTextContent(
      'Leak check not configured',
    );
    expect(screen.getByTestId('notice-cve_database_empty')).toHaveTextContent('The CVE database was empty');
  });
});
