import type { TEvent } from '@perimeter/contracts';
import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { makeUser, renderApp, signedIn } from '../../../test/render.tsx';
import type { TEventsState } from '../hooks/use-events-params.ts';
import { cve } from '../testing/events-fixtures.tsx';
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

/** The same nginx CVE matched on `host`. */
function nginxOn(n: number, host: string, port: number | null): TEvent {
  return cve(n, {
    id: `e${n}`,
    tech: 'nginx',
    version: '1.14.0',
    cve: 'CVE-2019-9511',
    host,
    subdomain: host,
    port,
  });
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
