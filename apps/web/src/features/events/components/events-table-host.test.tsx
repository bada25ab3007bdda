import type { TEvent } from '@perimeter/contracts';
import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { makeUser, renderApp, signedIn } from '../../../test/render.tsx';
import type { TEventsState } from '../hooks/use-events-params.ts';
import { EventsTable } from './events-table.tsx';

const state: TEventsState = {
  page: 0,
  sort: 'add_ts',
  order: 'desc',
  severity: [],
  hideResolved: false,
  subdomain: '',
  subdomainMatch: 'contains',
  domain: '',
  domainMatch: 'contains',
  vulns: 'all',
  email: '',
  emailMatch: 'contains',
  password: 'all',
  kev: false,
};

function nginxOn(n: number, host: string, port: number | null): TEvent {
  return {
    id: `e${n}`,
    user_target_id: 't1',
    fingerprint: `f${n}`,
    severity: 'medium',
    severity_ordering: 3,
    main_domain: 'acme.test',
    status: 'open',
    resolved: false,
    resolved_reason: null,
    add_ts: '2026-11-01T00:00:00Z',
    first_seen: '2026-11-01T00:00:00Z',
    last_seen: '2026-11-01T00:00:00Z',
    fixed_at: null,
    kev: false,
    kev_date_added: null,
    kev_due_date: null,
    kev_ransomware: false,
    epss_score: null,
    epss_percentile: null,
    match_confidence: null,
    backport_note: null,
    package_revision: null,
    scan_subclass: 'exploit_db',
    tech: 'nginx',
    version: '1.14.0',
    cve: 'CVE-2019-9511',
    host,
    subdomain: host,
    port,
    cvss_score: 7.5,
    cvss_vector: null,
    description: null,
    info_created_ts: '2019-08-13T00:00:00Z',
    info_updated_ts: null,
    last_update_ts: '2026-11-01T00:00:00Z',
    last_check_ts: '2026-11-01T00:00:00Z',
    version_start: null,
    version_end: null,
    version_start_excluding: false,
    version_end_excluding: false,
    latest_version: null,
    homepage: null,
    downloads_per_month: null,
    source_repository: null,
    cwe: [],
    references: [],
  };
}

describe('CVE tab table', () => {
  it('shows the host (and port) of each match, so one technology on three hosts reads as three rows', () => {
    renderApp(
      <EventsTable
        subclass="exploit_db"
        items={[
          nginxOn(1, 'acme.test', 80),
          nginxOn(2, 'www.acme.test', 80),
          nginxOn(3, 'docs.acme.test', null),
        ]}
        state={state}
        label="Known exploits"
        onSort={vi.fn()}
        onOpen={vi.fn()}
      />,
      { auth: signedIn(makeUser()) },
    );
    const headers = screen.getAllByRole('columnheader').map((h) => h.textContent);
    expect(headers.slice(0, 4)).toEqual(['Technology', 'Version', 'Host', 'CVE']);
    expect(within(screen.getByTestId('event-e1')).getByText('acme.test:80')).toBeInTheDocument();
    expect(within(screen.getByTestId('event-e2')).getByText('www.acme.test:80')).toBeInTheDocument();
    expect(within(screen.getByTestId('event-e3')).getByText('docs.acme.test')).toBeInTheDocument();
  });
});
