import type { TEvent } from '@perimeter/contracts';
import { expect } from 'vitest';
import type { TPage, TScansJourney } from './scans-journey.ts';

const SORTS: Record<TEvent['scan_subclass'], [string, string][]> = {
  exploit_scanner: [
    ['Name', 'name'],
    ['Severity', 'severity_ordering'],
    ['Host', 'host'],
    ['Main domain', 'main_domain'],
    ['Subdomain', 'subdomain'],
    ['Found', 'add_ts'],
  ],
  exploit_db: [
    ['Technology', 'tech'],
    ['Version', 'version'],
    ['CVE', 'cve'],
    ['Severity', 'severity'],
    ['Main domain', 'main_domain'],
    ['Published', 'info_created_ts'],
    ['CVE updated', 'info_updated_ts'],
    ['Last update', 'last_update_ts'],
    ['Last check', 'last_check_ts'],
    ['Found', 'add_ts'],
    ['EPSS', 'epss_score'],
  ],
  leakcheck: [
    ['E-mail', 'email'],
    ['Password', 'password'],
    ['Leak date', 'leak_date'],
    ['Main domain', 'main_domain'],
    ['Found', 'add_ts'],
  ],
};

export function keyOf(e: TEvent): string {
  if (e.scan_subclass === 'exploit_scanner') return `${e.template_id}@${e.host}`;
  if (e.scan_subclass === 'exploit_db') return `${e.cve}@${e.host}`;
  return e.email;
}

/** The events tables of the journey's scan, checked against the API and the lab's expected findings. */
export function eventsTable(j: TScansJourney) {
  async function allEvents(sub: TEvent['scan_subclass']): Promise<TEvent[]> {
    const out: TEvent[] = [];
    for (let offset = 0; ; offset += 100) {
      const res = await j.user.call<TPage<TEvent>>(
        'POST',
        `/main/get_one_user_abstract_scan_events?limit=100&offset=${offset}`,
        { scan_subclass: sub, id: j.scanId },
      );
      out.push(...res.data.items);
      if (out.length >= res.data.total || res.data.items.length === 0) return out;
    }
  }

  /** What a full scan of the domain must report (packages/lab/expected.json), one key per finding. */
  function expectedKeys(sub: TEvent['scan_subclass']): string[] {
    const inDomain = (host: string) => host === j.domain || host.endsWith(`.${j.domain}`);
    return j.lab
      .expected()
      .scanFindings.flatMap((f) => {
        if (f.subclass !== sub) return [];
        if (f.subclass === 'exploit_scanner') return inDomain(f.host) ? [`${f.templateId}@${f.host}`] : [];
        if (f.subclass === 'exploit_db') return inDomain(f.host) ? [`${f.cve}@${f.host}`] : [];
        return f.mainDomain === j.domain ? [f.email] : [];
      })
      .sort();
  }

  /** Ids of the rows the events table shows, in order. */
  const rowIds = () =>
    j.page
      .locator('[data-testid^="event-"]')
      .evaluateAll((els) => els.map((e) => (e.getAttribute('data-testid') ?? '').slice('event-'.length)));

  /** The table shows exactly what the API answers for the same request, in the same order. */
  async function expectRows(sub: TEvent['scan_subclass'], body: Record<string, unknown>, limit: number) {
    const want = await j.events(sub, body, limit);
    await expect.poll(rowIds, { timeout: 30_000 }).toEqual(want.items.map((e) => e.id));
    return want;
  }

  /**
   * Clicks every sortable header twice (both directions) and compares the rows with the API;
   * returns the sort the table is left in (its last column), for the filters checked next.
   */
  async function checkSorting(sub: TEvent['scan_subclass'], limit: number) {
    let last = { sort_key: '', sort_order: 'desc' };
    for (const [title, key] of SORTS[sub]) {
      // A heading may hold two sort buttons (the CVE tab's date pairs): the button names the field.
      const header = j.page.getByRole('table').first().getByRole('button', { name: title, exact: true });
      for (let i = 0; i < 2; i++) {
        await header.click();
        const order = new URL(j.page.url()).searchParams.get('order') ?? 'desc';
        await expect
          .poll(() => header.locator('xpath=ancestor::th').getAttribute('aria-sort'))
          .toBe(order === 'asc' ? 'ascending' : 'descending');
        last = { sort_key: key, sort_order: order };
        await expectRows(sub, last, limit);
      }
    }
    return last;
  }

  async function chooseSeverity(name: string) {
    await j.page.getByRole('combobox', { name: 'Severity' }).click();
    await j.page.getByRole('option', { name }).click();
    await j.page.keyboard.press('Escape');
  }

  return { allEvents, expectedKeys, rowIds, expectRows, checkSorting, chooseSeverity };
}
