import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { setUpPageTests } from '../../../test/page-setup.ts';
import {
  cve,
  header,
  lastBody,
  leak,
  listCalls,
  location,
  page,
  renderPage,
  requested,
  SCAN_ID,
  stubApi,
  type TCall,
  vuln,
} from '../testing/events-fixtures.tsx';

// The events page: what it asks the server, sorting, filters and paging in the address, tabs,
// totals and its states. A row's details: event-details.test.tsx; resolving: resolve-controls.test.tsx.
setUpPageTests();

/** Clicks a sortable header: sorted descending on the server, in the address and in aria-sort. */
async function checkSort(
  user: ReturnType<typeof userEvent.setup>,
  calls: TCall[],
  label: string,
  /** null: the tab's default sort, left out of the address. */
  param: string | null,
  sortKey: string,
) {
  await user.click(screen.getByRole('button', { name: label }));
  await waitFor(() =>
    expect(requested(calls)).toContainEqual(
      expect.objectContaining({ sort_key: sortKey, sort_order: 'desc' }),
    ),
  );
  if (param) expect(location()).toContain(`sort=${param}`);
  else expect(location()).not.toContain('sort=');
  expect(location()).not.toContain('order=asc');
  expect(header(label)).toHaveAttribute('aria-sort', 'descending');
}

/** A second click on the sorted column turns it ascending. */
async function checkAscending(
  user: ReturnType<typeof userEvent.setup>,
  calls: TCall[],
  label: string,
  sortKey: string,
) {
  await user.click(screen.getByRole('button', { name: label }));
  await waitFor(() =>
    expect(requested(calls)).toContainEqual(
      expect.objectContaining({ sort_key: sortKey, sort_order: 'asc' }),
    ),
  );
  expect(location()).toContain('order=asc');
  expect(header(label)).toHaveAttribute('aria-sort', 'ascending');
}

/** Clicking every column of a tab takes a while in jsdom on a shared 2-core machine. */
const SLOW = 120_000;

describe('events page', () => {
  it(
    'vulnerabilities: all scans, 10 a page, severity sorted as severity_ordering, every column sorts on the server',
    async () => {
      const calls = stubApi(() => page([vuln(1), vuln(2)], 2));
      const user = userEvent.setup();
      renderPage('/events/vulnerabilities');
      expect(await screen.findByText('Exposed .git/config 1')).toBeInTheDocument();
      const first = listCalls(calls)[0];
      expect(`${first?.path}${first?.search}`).toBe(
        '/api/main/get_all_user_abstract_scan_events?limit=10&offset=0',
      );
      expect(first?.body).toEqual({
        scan_class: 'class_exploitation',
        scan_subclass: 'exploit_scanner',
        sort_key: 'severity_ordering',
        sort_order: 'desc',
      });
      expect(header('Severity')).toHaveAttribute('aria-sort', 'descending');
      expect(header('Name')).not.toHaveAttribute('aria-sort');

      // The default column: one click turns it ascending.
      await user.click(screen.getByRole('button', { name: 'Severity' }));
      await waitFor(() =>
        expect(lastBody(calls)).toMatchObject({ sort_key: 'severity_ordering', sort_order: 'asc' }),
      );
      expect(location()).toBe('/events/vulnerabilities?order=asc');
      expect(header('Severity')).toHaveAttribute('aria-sort', 'ascending');

      for (const [label, key] of [
        ['Name', 'name'],
        ['Host', 'host'],
        ['Main domain', 'main_domain'],
        ['Subdomain', 'subdomain'],
        ['Found', 'add_ts'],
      ] as const) {
        await checkSort(user, calls, label, key, key);
      }
      await checkSort(user, calls, 'Severity', null, 'severity_ordering');
      await checkAscending(user, calls, 'Severity', 'severity_ordering');
    },
    SLOW,
  );

  it(
    'vulnerabilities: severity groups, hide resolved, subdomain and main-domain filters with contains/equals, paging',
    async () => {
      const calls = stubApi((_p, _b, url) => {
        const offset = Number(url.searchParams.get('offset'));
        return page([vuln(offset + 1)], 25);
      });
      const user = userEvent.setup();
      renderPage('/events/vulnerabilities');
      expect(await screen.findByText('Exposed .git/config 1')).toBeInTheDocument();

      await user.click(screen.getByRole('combobox', { name: /^Severity/ }));
      await user.click(await screen.findByRole('option', { name: 'High' }));
      await user.click(screen.getByRole('option', { name: 'Critical' }));
      await user.keyboard('{Escape}');
      await waitFor(() => expect(lastBody(calls)).toMatchObject({ severity: ['critical', 'high'] }));
      expect(location()).toBe('/events/vulnerabilities?severity=critical%2Chigh');

      await user.click(screen.getByRole('switch', { name: 'Hide resolved' }));
      await waitFor(() => expect(lastBody(calls)).toMatchObject({ hide_resolved: true }));
      expect(location()).toContain('hide_resolved=1');

      await user.type(screen.getByRole('textbox', { name: 'Subdomain' }), 'api');
      await waitFor(() =>
        expect(lastBody(calls)).toMatchObject({
          subdomain_filter_opt: { subdomain_filter: 'api', is_contains: true },
        }),
      );
      expect(location()).toContain('subdomain=api');
      await user.click(
        within(screen.getByRole('group', { name: 'Subdomain: how to match' })).getByRole('button', {
          name: 'Equals',
        }),
      );
      await waitFor(() =>
        expect(lastBody(calls)).toMatchObject({
          subdomain_filter_opt: { subdomain_filter: 'api', is_contains: false },
        }),
      );
      expect(location()).toContain('subdomain=api&subdomain_match=equals');

      await user.type(screen.getByRole('textbox', { name: 'Main domain' }), 'lab.test{Enter}');
      await waitFor(() =>
        expect(lastBody(calls)).toMatchObject({
          main_domain_filter_opt: { domain_filter: 'lab.test', is_contains: true },
        }),
      );
      expect(lastBody(calls)).toEqual({
        scan_class: 'class_exploitation',
        scan_subclass: 'exploit_scanner',
        sort_key: 'severity_ordering',
        sort_order: 'desc',
        severity: ['critical', 'high'],
        hide_resolved: true,
        subdomain_filter_opt: { subdomain_filter: 'api', is_contains: false },
        main_domain_filter_opt: { domain_filter: 'lab.test', is_contains: true },
      });

      await user.click(screen.getByRole('button', { name: /next page/i }));
      await waitFor(() => expect(listCalls(calls).at(-1)?.search).toBe('?limit=10&offset=10'));
      expect(await screen.findByText('Exposed .git/config 11')).toBeInTheDocument();
      expect(location()).toContain('page=1');
      expect(screen.getByText('11–11 of 25')).toBeInTheDocument();

      // Clearing removes every filter and starts again at the first page (its rows come from the cache).
      await user.click(screen.getByRole('button', { name: 'Clear filters' }));
      await waitFor(() => expect(location()).toBe('/events/vulnerabilities'));
      expect(await screen.findByText('Exposed .git/config 1')).toBeInTheDocument();
      expect(screen.getByText('1–1 of 25')).toBeInTheDocument();
    },
    SLOW,
  );

  it(
    'CVE: pages of 20, every column sorts, the vulnerabilities-existence filter',
    async () => {
      const calls = stubApi(() => page([cve(1)], 1));
      const user = userEvent.setup();
      renderPage('/events/cve');
      expect(await screen.findByText('Apache httpd')).toBeInTheDocument();
      const first = listCalls(calls)[0];
      expect(first?.search).toBe('?limit=20&offset=0');
      expect(first?.body).toEqual({
        scan_class: 'class_exploitation',
        scan_subclass: 'exploit_db',
        sort_key: 'severity_ordering',
        sort_order: 'desc',
      });
      for (const [label, key] of [
        ['Technology', 'tech'],
        ['Version', 'version'],
        ['CVE', 'cve'],
        ['Main domain', 'main_domain'],
        ['Published', 'info_created_ts'],
        ['CVE updated', 'info_updated_ts'],
        ['Last update', 'last_update_ts'],
        ['Last check', 'last_check_ts'],
        ['Found', 'add_ts'],
      ] as const) {
        await checkSort(user, calls, label, key, key);
      }
      await checkSort(user, calls, 'Severity', null, 'severity_ordering');
      await checkAscending(user, calls, 'Severity', 'severity_ordering');

      await user.click(screen.getByRole('combobox', { name: /^Known vulnerabilities/ }));
      await user.click(await screen.findByRole('option', { name: 'Without vulnerabilities' }));
      await waitFor(() => expect(lastBody(calls)).toMatchObject({ vulnerabilities_existence: 'without' }));
      expect(location()).toContain('vulns=without');
      await user.click(screen.getByRole('combobox', { name: /^Known vulnerabilities/ }));
      await user.click(await screen.findByRole('option', { name: 'With vulnerabilities' }));
      await waitFor(() => expect(lastBody(calls)).toMatchObject({ vulnerabilities_existence: 'with' }));
      await user.click(screen.getByRole('combobox', { name: /^Known vulnerabilities/ }));
      await user.click(await screen.findByRole('option', { name: 'All technologies' }));
      await waitFor(() => expect(location()).not.toContain('vulns='));
    },
    SLOW,
  );

  it(
    'leaks: pages of 10, every column sorts, the e-mail filter with its toggle and the password filter',
    async () => {
      const calls = stubApi(() => page([leak(1)], 1));
      const user = userEvent.setup();
      renderPage('/events/leaks');
      expect(await screen.findByText('user1@lab.test')).toBeInTheDocument();
      const first = listCalls(calls)[0];
      expect(first?.search).toBe('?limit=10&offset=0');
      expect(first?.body).toEqual({
        scan_class: 'class_information_gathering',
        scan_subclass: 'leakcheck',
        sort_key: 'add_ts',
        sort_order: 'desc',
      });
      expect(header('Found')).toHaveAttribute('aria-sort', 'descending');
      for (const [label, key] of [
        ['E-mail', 'email'],
        ['Password', 'password'],
        ['Leak date', 'leak_date'],
        ['Main domain', 'main_domain'],
      ] as const) {
        await checkSort(user, calls, label, key, key);
      }
      await checkSort(user, calls, 'Found', null, 'add_ts');
      await checkAscending(user, calls, 'Found', 'add_ts');

      await user.type(screen.getByRole('textbox', { name: 'E-mail' }), 'admin');
      await waitFor(() =>
        expect(lastBody(calls)).toMatchObject({
          email_filter_opt: { email_filter: 'admin', is_contains: true },
        }),
      );
      await user.click(
        within(screen.getByRole('group', { name: 'E-mail: how to match' })).getByRole('button', {
          name: 'Equals',
        }),
      );
      await waitFor(() =>
        expect(lastBody(calls)).toMatchObject({
          email_filter_opt: { email_filter: 'admin', is_contains: false },
        }),
      );
      expect(location()).toContain('email=admin&email_match=equals');

      await user.click(screen.getByRole('combobox', { name: /^Password/ }));
      await user.click(await screen.findByRole('option', { name: 'With a password' }));
      await waitFor(() => expect(lastBody(calls)).toMatchObject({ leak_email_password: true }));
      expect(location()).toContain('password=with');
    },
    SLOW,
  );

  it('reads its state from the address and, with a scan id, asks the one-scan endpoint', async () => {
    const calls = stubApi(() => page([cve(1)], 60));
    renderPage(
      `/events/cve/${SCAN_ID}?page=2&sort=tech&order=asc&severity=high,bogus,critical&hide_resolved=1&subdomain=www&subdomain_match=equals&domain=lab.test&vulns=without`,
    );
    expect(await screen.findByText('Apache httpd')).toBeInTheDocument();
    const first = listCalls(calls)[0];
    expect(`${first?.path}${first?.search}`).toBe(
      '/api/main/get_one_user_abstract_scan_events?limit=20&offset=40',
    );
    expect(first?.body).toEqual({
      id: SCAN_ID,
      scan_class: 'class_exploitation',
      scan_subclass: 'exploit_db',
      sort_key: 'tech',
      sort_order: 'asc',
      severity: ['critical', 'high'],
      hide_resolved: true,
      subdomain_filter_opt: { subdomain_filter: 'www', is_contains: false },
      main_domain_filter_opt: { domain_filter: 'lab.test', is_contains: true },
      vulnerabilities_existence: 'without',
    });
    expect(calls.some((c) => c.path.includes('get_all_user_abstract_scan_events'))).toBe(false);
    expect(
      within(screen.getByTestId('one-scan')).getByRole('link', { name: 'Open the scan' }),
    ).toHaveAttribute('href', `/scans/past-scans/${SCAN_ID}`);
    // Another tab keeps the scan and the filters every tab has; sorting, paging and tab-only filters reset.
    expect(screen.getByRole('tab', { name: 'Leaks' })).toHaveAttribute(
      'href',
      `/events/leaks/${SCAN_ID}?severity=critical%2Chigh&hide_resolved=1&subdomain=www&subdomain_match=equals&domain=lab.test`,
    );
    expect(screen.getByRole('tab', { name: 'Known exploits (CVE)' })).toHaveAttribute(
      'aria-selected',
      'true',
    );
  });

  it('switching tabs asks for the other subclass', async () => {
    const calls = stubApi((_p, body) =>
      body?.scan_subclass === 'leakcheck' ? page([leak(1)]) : page([vuln(1)]),
    );
    const user = userEvent.setup();
    renderPage(`/events/vulnerabilities/${SCAN_ID}?severity=high`);
    expect(await screen.findByText('Exposed .git/config 1')).toBeInTheDocument();
    await user.click(screen.getByRole('tab', { name: 'Leaks' }));
    expect(await screen.findByText('user1@lab.test')).toBeInTheDocument();
    expect(location()).toBe(`/events/leaks/${SCAN_ID}?severity=high`);
    const last = listCalls(calls).at(-1);
    expect(last?.path).toBe('/api/main/get_one_user_abstract_scan_events');
    expect(last?.body).toMatchObject({ id: SCAN_ID, scan_subclass: 'leakcheck', severity: ['high'] });
  });

  it('shows "10,000+" when the total is a lower bound', async () => {
    stubApi(() => page([leak(1)], 10_000, false));
    renderPage('/events/leaks');
    expect(await screen.findByTestId('events-total')).toHaveTextContent('Findings: 10,000+');
    expect(screen.getByText('1–1 of 10,000+')).toBeInTheDocument();
  });

  it('shows the loading, error and empty states', async () => {
    let fail = true;
    stubApi(() => (fail ? Response.json({ detail: 'Broken.', code: 'odd' }, { status: 400 }) : page([], 0)));
    const user = userEvent.setup();
    renderPage('/events/vulnerabilities');
    expect(screen.getAllByRole('progressbar', { name: 'Loading…' }).length).toBeGreaterThan(0);
    expect(await screen.findByText(/The findings could not be loaded\. Broken\./)).toBeInTheDocument();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    const empty = await screen.findByTestId('events-empty');
    expect(empty).toHaveTextContent('No vulnerabilities found yet.');
    expect(within(empty).getByRole('link', { name: 'Start a new scan' })).toHaveAttribute('href', '/scans');
  });
});
