import { expect, it } from 'vitest';
import { eventsTable, keyOf } from './support/events-table.ts';
import type { TScansJourney } from './support/scans-journey.ts';

/**
 * The events tabs of the scans journey's finished scan (registered inside its describe block, after
 * the scan has run): each tab lists exactly the lab's expected findings of the domain, every column
 * sorts and every filter narrows the rows as the API does; a finding's details and resolve + Undo.
 */
export function eventsTabsTests(j: TScansJourney) {
  const { allEvents, expectedKeys, rowIds, expectRows, checkSorting, chooseSeverity } = eventsTable(j);

  it('the vulnerabilities tab lists the scan findings; each column sorts and each filter narrows them as the API does', async () => {
    await j.go(`/events/vulnerabilities/${j.scanId}`);
    const all = await expectRows(
      'exploit_scanner',
      { sort_key: 'severity_ordering', sort_order: 'desc' },
      10,
    );
    // Exactly the lab's expected vulnerabilities of the domain: none missing, none extra.
    const want = expectedKeys('exploit_scanner');
    expect([...new Set((await allEvents('exploit_scanner')).map(keyOf))].sort()).toEqual(want);
    expect(all.total).toBeGreaterThan(10);
    await j.page.getByText(`Findings: ${all.total}`).waitFor();
    // The lab's planted issues are there: the exposed git config of app.acme.test, for one.
    const git = await j.events(
      'exploit_scanner',
      { subdomain_filter_opt: { subdomain_filter: 'app', is_contains: false } },
      50,
    );
    expect(
      git.items.some((e) => e.scan_subclass === 'exploit_scanner' && e.template_id.includes('git')),
    ).toBe(true);
    await j.shots.capture('events-vulnerabilities');
    const sort = await checkSorting('exploit_scanner', 10);
    await chooseSeverity('High');
    await expectRows('exploit_scanner', { ...sort, severity: ['high'] }, 10);
    await j.page.getByRole('textbox', { name: 'Subdomain' }).fill('app');
    await j.page.getByRole('textbox', { name: 'Subdomain' }).press('Enter');
    await expectRows(
      'exploit_scanner',
      { ...sort, severity: ['high'], subdomain_filter_opt: { subdomain_filter: 'app', is_contains: true } },
      10,
    );
    await j.page
      .getByRole('group', { name: 'Subdomain: how to match' })
      .getByRole('button', { name: 'Equals' })
      .click();
    const exact = await expectRows(
      'exploit_scanner',
      {
        ...sort,
        severity: ['high'],
        subdomain_filter_opt: { subdomain_filter: 'app', is_contains: false },
      },
      10,
    );
    expect(exact.total).toBeGreaterThan(0);
    await j.page.getByRole('textbox', { name: 'Main domain' }).fill('acme');
    await j.page.getByRole('textbox', { name: 'Main domain' }).press('Enter');
    await expectRows(
      'exploit_scanner',
      {
        ...sort,
        severity: ['high'],
        subdomain_filter_opt: { subdomain_filter: 'app', is_contains: false },
        main_domain_filter_opt: { domain_filter: 'acme', is_contains: true },
      },
      10,
    );
    await j.page
      .getByRole('group', { name: 'Main domain: how to match' })
      .getByRole('button', { name: 'Equals' })
      .click();
    await expect.poll(rowIds).toEqual([]);
    await j.page.getByRole('button', { name: 'Clear filters' }).click();
    await expectRows('exploit_scanner', sort, 10);
  });

  it('a finding shows how to reproduce it with a curl command; resolving it offers Undo, which reopens it', async () => {
    await j.go(`/events/vulnerabilities/${j.scanId}`);
    // The first web finding on the page (others reproduce with nc, dig or openssl).
    const first = (
      await expectRows('exploit_scanner', { sort_key: 'severity_ordering', sort_order: 'desc' }, 10)
    ).items.find((e) => e.scan_subclass === 'exploit_scanner' && e.evidence?.curl.startsWith('curl '));
    if (first?.scan_subclass !== 'exploit_scanner') throw new Error('no vulnerability to open');
    await j.page.getByTestId(`event-${first.id}`).getByRole('button', { name: first.name }).click();
    const dialog = j.page.getByRole('dialog');
    await dialog.getByText('How to reproduce').waitFor();
    await dialog.getByText('curl command').first().waitFor();
    expect(first.evidence?.curl).toMatch(/^curl /);
    expect(await dialog.textContent()).toContain((first.evidence?.curl ?? '').slice(0, 40));
    await dialog.getByRole('button', { name: 'Copy curl command' }).waitFor();
    await j.shots.capture('events-details', async () => {
      await j.page.getByTestId(`event-${first.id}`).getByRole('button', { name: /./ }).first().click();
      // capture waits for the dialog to finish fading in before axe measures its contrast.
      await j.page.getByRole('dialog').waitFor();
    });

    const before = (await j.events('exploit_scanner', { hide_resolved: true })).total;
    await dialog.getByRole('combobox', { name: /^Reason/ }).click();
    await j.page.getByRole('option', { name: 'False positive' }).click();
    await dialog.getByRole('button', { name: 'Mark as resolved' }).click();
    await j.page.getByText('Marked as resolved.').first().waitFor();
    expect((await j.events('exploit_scanner', { hide_resolved: true })).total).toBe(before - 1);
    await j.page.getByRole('button', { name: 'Undo' }).click();
    await j.page.getByText('Change undone.').waitFor();
    await expect
      .poll(async () => (await j.events('exploit_scanner', { hide_resolved: true })).total)
      .toBe(before);
  });

  it('the CVE tab lists the known-exploit matches; sorting, severity and existence filters match the API', async () => {
    await j.go(`/events/cve/${j.scanId}`);
    const all = await expectRows('exploit_db', { sort_key: 'severity', sort_order: 'desc' }, 20);
    expect([...new Set((await allEvents('exploit_db')).map(keyOf))].sort()).toEqual(
      expectedKeys('exploit_db'),
    );
    expect(all.total).toBeGreaterThan(20);
    await j.page.getByText(`Findings: ${all.total}`).waitFor();
    // Apache 2.4.49 of app.acme.test matches CVE-2021-41773.
    const apache = await j.events(
      'exploit_db',
      { subdomain_filter_opt: { subdomain_filter: 'app', is_contains: false } },
      100,
    );
    expect(apache.items.some((e) => e.scan_subclass === 'exploit_db' && e.cve === 'CVE-2021-41773')).toBe(
      true,
    );
    await j.shots.capture('events-cve');
    const sort = await checkSorting('exploit_db', 20);
    await chooseSeverity('Critical');
    await expectRows('exploit_db', { ...sort, severity: ['critical'] }, 20);
    await j.page.getByRole('combobox', { name: 'Known vulnerabilities' }).click();
    await j.page.getByRole('option', { name: 'With vulnerabilities' }).click();
    await expectRows(
      'exploit_db',
      { ...sort, severity: ['critical'], vulnerabilities_existence: 'with' },
      20,
    );
    await j.page.getByRole('button', { name: 'Clear filters' }).click();
    await expectRows('exploit_db', sort, 20);
  });

  it('the leaks tab lists the leaked accounts of the domain, masked; sorting and the e-mail filter match the API', async () => {
    await j.go(`/events/leaks/${j.scanId}`);
    const all = await expectRows('leakcheck', { sort_key: 'add_ts', sort_order: 'desc' }, 10);
    const corpus = j.lab.expected().leakCorpus.filter((l) => l.email.endsWith(`@${j.domain}`));
    expect((await allEvents('leakcheck')).map(keyOf).sort()).toEqual(expectedKeys('leakcheck'));
    expect(all.total).toBeGreaterThan(0);
    await j.page.getByText(`Findings: ${all.total}`).waitFor();
    for (const e of all.items) {
      if (e.scan_subclass !== 'leakcheck') continue;
      const leaked = corpus.find((l) => l.email === e.email);
      expect(leaked, e.email).toBeDefined();
      // Never the clear password in the j.page.
      expect(await j.page.content()).not.toContain(`>${leaked?.password}<`);
    }
    await j.shots.capture('events-leaks');
    const sort = await checkSorting('leakcheck', 10);
    const one = all.items[0];
    if (one?.scan_subclass !== 'leakcheck') throw new Error('no leak');
    await j.page.getByRole('textbox', { name: 'E-mail', exact: true }).fill(one.email);
    await j.page.getByRole('textbox', { name: 'E-mail', exact: true }).press('Enter');
    await expectRows(
      'leakcheck',
      { ...sort, email_filter_opt: { email_filter: one.email, is_contains: true } },
      10,
    );
    await j.page
      .getByRole('group', { name: 'E-mail: how to match' })
      .getByRole('button', { name: 'Equals' })
      .click();
    const exact = await expectRows(
      'leakcheck',
      { ...sort, email_filter_opt: { email_filter: one.email, is_contains: false } },
      10,
    );
    expect(exact.items.every((e) => e.scan_subclass === 'leakcheck' && e.email === one.email)).toBe(true);
  });
}
