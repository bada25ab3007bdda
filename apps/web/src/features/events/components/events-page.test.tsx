import type { TEvent, TEventsPage } from '@perimeter/contracts';
import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes, useLocation } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeUser, renderApp, signedIn } from '../../../test/render.tsx';
import { EventsPage } from './events-page.tsx';

// The machine is shared: under load a dialog's exit or a menu takes longer than the default 1 s.
configure({ asyncUtilTimeout: 5000 });

afterEach(() => {
  vi.unstubAllGlobals();
});

const SCAN_ID = '7b1c3a52-9d0e-4f7a-8c11-2a4f5e6d7c8b';
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const lifecycle = {
  user_target_id: 't1',
  fingerprint: 'fp',
  severity: 'high' as const,
  severity_ordering: 4,
  main_domain: 'lab.test',
  status: 'open' as const,
  resolved: false,
  resolved_reason: null,
  add_ts: '2026-11-01T10:00:00Z',
  first_seen: '2026-11-01T10:00:00Z',
  last_seen: '2026-11-02T10:00:00Z',
  fixed_at: null,
};

function vuln(n: number, extra: Partial<Extract<TEvent, { scan_subclass: 'exploit_scanner' }>> = {}): TEvent {
  return {
    ...lifecycle,
    id: uuid(n),
    scan_subclass: 'exploit_scanner',
    template_id: 'git-config',
    name: `Exposed .git/config ${n}`,
    host: 'https://www.lab.test',
    subdomain: 'www.lab.test',
    matched_at: 'https://www.lab.test/.git/config',
    description: 'The git configuration is served.',
    impact: 'Source code and credentials can be downloaded.',
    remediation: 'Deny access to /.git in the web server.',
    references: ['https://owasp.org/git', 'javascript:alert(1)'],
    tags: ['exposure', 'git'],
    extracted: [],
    classification: { 'cwe-id': ['CWE-200'], 'cvss-score': 7.5 },
    evidence: {
      request: 'GET /.git/config HTTP/1.1\nHost: www.lab.test',
      response: 'HTTP/1.1 200 OK\n\n[core]',
      curl: "curl -sk 'https://www.lab.test/.git/config'",
    },
    ...extra,
  };
}

function cve(n: number): TEvent {
  return {
    ...lifecycle,
    id: uuid(n),
    severity: 'critical',
    severity_ordering: 5,
    scan_subclass: 'exploit_db',
    tech: 'Apache httpd',
    version: '2.4.49',
    cve: `CVE-2021-4177${n}`,
    host: 'www.lab.test',
    subdomain: 'www.lab.test',
    port: 443,
    cvss_score: 9.8,
    cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    description: 'Path traversal.',
    info_created_ts: '2021-10-05T00:00:00Z',
    info_updated_ts: '2021-10-20T00:00:00Z',
    last_update_ts: '2026-11-01T00:00:00Z',
    last_check_ts: '2026-11-02T00:00:00Z',
    version_start: '2.4.49',
    version_end: '2.4.50',
    version_start_excluding: false,
    version_end_excluding: true,
    latest_version: '2.4.62',
    homepage: 'https://httpd.apache.org/',
    downloads_per_month: 12345,
    source_repository: 'https://github.com/apache/httpd',
    cwe: ['CWE-22'],
    references: ['https://nvd.nist.gov/vuln/detail/CVE-2021-41773'],
    kev: false,
    kev_date_added: null,
    kev_due_date: null,
    kev_ransomware: false,
    epss_score: null,
    epss_percentile: null,
    match_confidence: null,
    backport_note: null,
    package_revision: null,
  };
}

function leak(n: number, password = 'hu******23'): TEvent {
  return {
    ...lifecycle,
    id: uuid(n),
    scan_subclass: 'leakcheck',
    email: `user${n}@lab.test`,
    password,
    leak_date: '2023-04-01',
    sources: ['Collection #1', 'lab-breach'],
  };
}

type TCall = { path: string; search: string; body: Record<string, unknown> | null };

function stubApi(handler: (path: string, body: Record<string, unknown> | null, url: URL) => Response) {
  const calls: TCall[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (req: Request) => {
      const url = new URL(req.url);
      const text = req.method === 'POST' ? await req.text() : '';
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : null;
      calls.push({ path: url.pathname, search: url.search, body });
      return handler(url.pathname, body, url);
    }),
  );
  return calls;
}

const page = (items: TEvent[], total = items.length, total_exact = true): Response =>
  Response.json({ data: { items, total, total_exact, details_hidden: false } satisfies TEventsPage });

function Location() {
  const location = useLocation();
  return <output data-testid="location">{`${location.pathname}${location.search}`}</output>;
}

function renderPage(route: string) {
  const element = (
    <>
      <EventsPage />
      <Location />
    </>
  );
  return renderApp(
    <Routes>
      <Route path="/events/vulnerabilities/:scanId?" element={element} />
      <Route path="/events/cve/:scanId?" element={element} />
      <Route path="/events/leaks/:scanId?" element={element} />
    </Routes>,
    { auth: signedIn(makeUser()), route },
  );
}

const listCalls = (calls: TCall[]) => calls.filter((c) => c.path.includes('_abstract_scan_events'));
const lastBody = (calls: TCall[]) => listCalls(calls).at(-1)?.body;
/**
 * Every list body sent. RTK Query serves a state seen before from its cache without a request, so
 * returning to one (the default sort, the first page) is checked by "was asked", not "was asked last".
 */
const requested = (calls: TCall[]) => listCalls(calls).map((c) => c.body);
const location = () => screen.getByTestId('location').textContent;
const header = (name: string) => screen.getByRole('button', { name }).closest('th');

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

  it('a vulnerability row opens its details: impact, how to resolve, a copyable curl command, references, classification', async () => {
    stubApi(() => page([vuln(1)]));
    const user = userEvent.setup();
    renderPage('/events/vulnerabilities');
    await user.click(await screen.findByTestId(`event-${uuid(1)}`));
    const dialog = await screen.findByRole('dialog', { name: 'Exposed .git/config 1' });
    const section = (name: string) => within(dialog).getByRole('region', { name });
    expect(section('Impact')).toHaveTextContent('Source code and credentials can be downloaded.');
    expect(section('How to resolve')).toHaveTextContent('Deny access to /.git in the web server.');
    const reproduce = section('How to reproduce');
    expect(within(reproduce).getByLabelText('curl command')).toHaveTextContent(
      "curl -sk 'https://www.lab.test/.git/config'",
    );
    expect(within(reproduce).getByLabelText('Request')).toHaveTextContent('GET /.git/config HTTP/1.1');
    expect(within(reproduce).getByLabelText('Response (evidence)')).toHaveTextContent('[core]');
    await user.click(within(reproduce).getByRole('button', { name: 'Copy curl command' }));
    await expect(navigator.clipboard.readText()).resolves.toBe("curl -sk 'https://www.lab.test/.git/config'");
    const refs = section('Web references');
    expect(within(refs).getByRole('link', { name: 'https://owasp.org/git' })).toHaveAttribute(
      'rel',
      'noopener noreferrer',
    );
    // Not a web link: shown as text, never as a link.
    expect(within(refs).queryByRole('link', { name: 'javascript:alert(1)' })).toBeNull();
    expect(within(refs).getByText('javascript:alert(1)')).toBeInTheDocument();
    const classification = section('Classification');
    expect(classification).toHaveTextContent('Classification severity');
    expect(within(classification).getByTestId('severity-high')).toHaveTextContent('High');
    expect(classification).toHaveTextContent('CWECWE-200');
    expect(classification).toHaveTextContent('CVSS score7.5');
  });

  it('on a plan without details (Trial) the page and the dialog say the details are hidden', async () => {
    const hidden = vuln(1, {
      description: null,
      impact: null,
      remediation: null,
      references: [],
      classification: null,
      evidence: null,
    });
    stubApi(() =>
      Response.json({ data: { items: [hidden], total: 1, total_exact: true, details_hidden: true } }),
    );
    const user = userEvent.setup();
    renderPage('/events/vulnerabilities');
    expect(await screen.findByTestId('details-hidden')).toHaveTextContent(
      /Trial scan plan shows what was found/,
    );
    await user.click(await screen.findByTestId(`event-${uuid(1)}`));
    const dialog = await screen.findByRole('dialog', { name: 'Exposed .git/config 1' });
    expect(within(dialog).getByTestId('details-hidden')).toBeInTheDocument();
    expect(within(dialog).queryByRole('region', { name: 'How to reproduce' })).toBeNull();
    expect(within(dialog).queryByRole('region', { name: 'Impact' })).toBeNull();
    expect(within(dialog).getByRole('link', { name: 'Choose a plan' })).toHaveAttribute(
      'href',
      '/choose-plan',
    );
  });

  it('a CVE row shows its technology info', async () => {
    stubApi(() => page([cve(1)]));
    const user = userEvent.setup();
    renderPage('/events/cve');
    await user.click(await screen.findByRole('button', { name: 'Apache httpd' }));
    const dialog = await screen.findByRole('dialog', { name: 'Apache httpd · 2.4.49 · CVE-2021-41771' });
    const info = within(dialog).getByRole('region', { name: 'Technology info' });
    // The bounds say whether they are affected themselves (2.4.49 is, 2.4.50 is not).
    expect(info).toHaveTextContent('Affected versions (start – end)≥ 2.4.49, < 2.4.50');
    expect(info).toHaveTextContent('Latest version2.4.62');
    expect(info).toHaveTextContent('Downloads per month12,345');
    expect(within(info).getByRole('link', { name: 'https://httpd.apache.org/' })).toHaveAttribute(
      'href',
      'https://httpd.apache.org/',
    );
    expect(within(info).getByRole('link', { name: 'https://github.com/apache/httpd' })).toBeInTheDocument();
    expect(within(dialog).getByRole('region', { name: 'Classification' })).toHaveTextContent('CVSS score9.8');
  });

  it('a leak row shows the masked password, its sources and date; a clear password is masked here', async () => {
    stubApi(() => page([leak(1), leak(2, 'hunter2secret')]));
    const user = userEvent.setup();
    renderPage('/events/leaks');
    expect(await screen.findByText('user1@lab.test')).toBeInTheDocument();
    expect(screen.queryByText('hunter2secret')).toBeNull();
    expect(screen.getByText('hu*********et')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'user1@lab.test' }));
    const dialog = await screen.findByRole('dialog', { name: 'user1@lab.test' });
    const info = within(dialog).getByRole('region', { name: 'Leak info' });
    expect(within(info).getByTestId('leak-password')).toHaveTextContent('hu******23');
    expect(info).toHaveTextContent('Leak sourcesCollection #1, lab-breach');
    expect(info).toHaveTextContent('Leak dateApr 1, 2023');
    await user.click(within(dialog).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await user.click(screen.getByRole('button', { name: 'user2@lab.test' }));
    const second = await screen.findByRole('dialog', { name: 'user2@lab.test' });
    expect(within(second).getByTestId('leak-password')).toHaveTextContent('hu*********et');
    expect(second).not.toHaveTextContent('hunter2secret');
  });

  it('marks a finding resolved with a reason; Undo in the snackbar reopens it', async () => {
    let resolved = false;
    const calls = stubApi((path, body) => {
      if (path.endsWith('/main/resolve_abstract_scan_event')) {
        resolved = true;
        return Response.json({
          data: vuln(1, { resolved: true, resolved_reason: body?.reason as 'accepted_risk' }),
        });
      }
      if (path.endsWith('/main/unresolve_abstract_scan_event')) {
        resolved = false;
        return Response.json({ data: vuln(1) });
      }
      return page([vuln(1, resolved ? { resolved: true, resolved_reason: 'accepted_risk' } : {})]);
    });
    const user = userEvent.setup();
    renderPage('/events/vulnerabilities');
    await user.click(await screen.findByTestId(`event-${uuid(1)}`));
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('combobox', { name: /^Reason/ }));
    await user.click(await screen.findByRole('option', { name: 'Accepted risk' }));
    const listsBefore = listCalls(calls).length;
    await user.click(within(dialog).getByRole('button', { name: 'Mark as resolved' }));

    const resolve = await waitFor(() => {
      const call = calls.find((c) => c.path.endsWith('/resolve_abstract_scan_event'));
      expect(call).toBeDefined();
      return call;
    });
    expect(resolve?.body).toEqual({
      scan_subclass: 'exploit_scanner',
      event_id: uuid(1),
      reason: 'accepted_risk',
    });
    // The dialog closes (so the snackbar is reachable), the list is asked again and shows the new state.
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await waitFor(() => expect(listCalls(calls).length).toBeGreaterThan(listsBefore));
    await waitFor(() =>
      expect(within(screen.getByTestId(`event-${uuid(1)}`)).getByText('Resolved')).toBeInTheDocument(),
    );

    const snackbar = (await screen.findByText('Marked as resolved.')).closest(
      '[role="alert"]',
    ) as HTMLElement;
    await user.click(within(snackbar).getByRole('button', { name: 'Undo' }));
    await waitFor(() =>
      expect(calls.find((c) => c.path.endsWith('/unresolve_abstract_scan_event'))?.body).toEqual({
        scan_subclass: 'exploit_scanner',
        event_id: uuid(1),
      }),
    );
    expect(await screen.findByText('Change undone.')).toBeInTheDocument();
    await waitFor(() =>
      expect(within(screen.getByTestId(`event-${uuid(1)}`)).getByText('Open')).toBeInTheDocument(),
    );
    await user.click(screen.getByTestId(`event-${uuid(1)}`));
    expect(
      within(await screen.findByRole('dialog')).getByRole('button', { name: 'Mark as resolved' }),
    ).toBeInTheDocument();
  });

  it('reopening offers Undo, which resolves again with the former reason', async () => {
    const calls = stubApi((path, body) => {
      if (path.endsWith('/main/unresolve_abstract_scan_event')) return Response.json({ data: vuln(1) });
      if (path.endsWith('/main/resolve_abstract_scan_event'))
        return Response.json({
          data: vuln(1, { resolved: true, resolved_reason: body?.reason as 'false_positive' }),
        });
      return page([vuln(1, { resolved: true, resolved_reason: 'false_positive' })]);
    });
    const user = userEvent.setup();
    renderPage('/events/vulnerabilities');
    await user.click(await screen.findByTestId(`event-${uuid(1)}`));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByTestId('resolved-reason')).toHaveTextContent('Resolved: False positive');
    await user.click(within(dialog).getByRole('button', { name: 'Reopen' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls.find((c) => c.path.endsWith('/unresolve_abstract_scan_event'))?.body).toEqual({
      scan_subclass: 'exploit_scanner',
      event_id: uuid(1),
    });
    const snackbar = (await screen.findByText('Reopened.')).closest('[role="alert"]') as HTMLElement;
    await user.click(within(snackbar).getByRole('button', { name: 'Undo' }));
    await waitFor(() =>
      expect(calls.filter((c) => c.path.endsWith('/resolve_abstract_scan_event')).map((c) => c.body)).toEqual(
        [{ scan_subclass: 'exploit_scanner', event_id: uuid(1), reason: 'false_positive' }],
      ),
    );
  });

  it('tells why a resolve was refused and keeps the dialog open', async () => {
    stubApi((path) =>
      path.endsWith('/main/resolve_abstract_scan_event')
        ? Response.json({ detail: 'Event not found.', code: 'not_found' }, { status: 404 })
        : page([vuln(1)]),
    );
    const user = userEvent.setup();
    renderPage('/events/vulnerabilities');
    await user.click(await screen.findByTestId(`event-${uuid(1)}`));
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('button', { name: 'Mark as resolved' }));
    const alert = (await screen.findByText('Not found.')).closest('.MuiAlert-root');
    expect(alert).toHaveClass('MuiAlert-colorError');
    expect(screen.queryByText('Marked as resolved.')).toBeNull();
    expect(within(dialog).getByRole('button', { name: 'Mark as resolved' })).toBeEnabled();
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
