import { spawnSync } from 'node:child_process';
import path from 'node:path';
import type { TEvent, TScanProgress } from '@perimeter/contracts';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS, missingBrowserReason } from './support/browser.ts';
import { createCapture, recordFailure, SCREENSHOT_DIR, settle } from './support/capture.ts';
import { type Lab, labServerEnv, loadLabIntel, startE2eLab } from './support/lab.ts';
import { ensureBuilt, startServer, type TServer } from './support/server.ts';
import { startSmtp } from './support/smtp.ts';
import { prepareUser, type TPreparedUser } from './support/user.ts';

/**
 * The scans journey of issue 7 in Debian's Chromium against the real server (API, workers and
 * scheduler in one process), the lab's DNS and planted services, and the lab's own CVE feed and
 * leak corpus loaded with the operator commands: add a lab domain, verify it, run a full scan and
 * watch it, read the events tabs (exactly the lab's expected findings), download the PDF,
 * schedule, cancel a second scan. Every page of the issue is captured in light/dark × en/ru with
 * axe-core run on each.
 */
const DOMAIN = 'acme.test';
const skipReason = missingBrowserReason();
if (skipReason) console.warn(`scans e2e skipped: ${skipReason}`);

type TPage<T> = { items: T[]; total: number };

describe.skipIf(skipReason !== null)(
  'scans journey in Chromium against the server, workers and the lab',
  () => {
    let smtp: Awaited<ReturnType<typeof startSmtp>>;
    let lab: Lab;
    let server: TServer;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let user: TPreparedUser;
    let shots: ReturnType<typeof createCapture>;
    let targetId = '';
    let scanId = '';

    const go = async (route: string) => {
      await page.goto(`${server.url}${route}`);
      await settle(page);
    };

    async function events(sub: TEvent['scan_subclass'], body: Record<string, unknown> = {}, limit = 10) {
      const res = await user.call<TPage<TEvent>>(
        'POST',
        `/main/get_one_user_abstract_scan_events?limit=${limit}&offset=0`,
        { scan_subclass: sub, id: scanId, ...body },
      );
      expect(res.status, JSON.stringify(res.raw)).toBe(200);
      return res.data;
    }

    beforeAll(async () => {
      ensureBuilt();
      smtp = await startSmtp();
      lab = await startE2eLab('127.0.161');
      server = await startServer(smtp.port, labServerEnv(lab));
      loadLabIntel(server, lab);
      user = await prepareUser(server, smtp, `scans-${Date.now()}@example.com`);
      server.cli(['plans', 'assign', user.email, 'business']);
      browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
      context = await browser.newContext({
        viewport: { width: 1440, height: 900 },
        locale: 'en-GB',
        timezoneId: 'Europe/Berlin',
        acceptDownloads: true,
      });
      page = await context.newPage();
      shots = createCapture(page);
      await user.signIn(page);
      await context.addCookies([{ name: 'cookieConsent', value: 'true', url: server.url }]);
    });

    afterEach((ctx) => recordFailure(ctx.task, page, 'scans', () => server.logs()));

    afterAll(async () => {
      await context?.close();
      await browser?.close();
      await server?.stop();
      await lab?.stop();
      await smtp?.close();
    });

    it('adds a lab domain on /scans; verification fails, passes once the lab publishes the TXT record', async () => {
      await go('/scans');
      await shots.capture('new-scan');
      await page
        .getByRole('button', { name: 'Add a target' })
        .click()
        .catch(() => undefined);
      await page.getByRole('radio', { name: 'Domain' }).check();
      await page.getByRole('textbox', { name: /Domain name/ }).fill('not a domain');
      await page.getByText(/This is not a valid domain name/).waitFor();
      await page.getByRole('textbox', { name: /Domain name/ }).fill(DOMAIN);
      // A new target goes straight to its verification step.
      await page.getByRole('button', { name: 'Add target' }).click();
      await page.getByRole('heading', { name: 'Step 2 of 4: Verification' }).waitFor();
      await page.getByRole('button', { name: 'Check' }).click();
      await page.getByText('Not verified yet').waitFor();
      await page.getByText('What to fix').waitFor();
      expect(await page.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
      await shots.capture('new-scan-verification', async () => {
        await page.getByRole('radio', { name: new RegExp(DOMAIN.replace('.', '\\.')) }).check();
        await page.getByRole('button', { name: /Next|Далее/ }).click();
        await page.getByRole('button', { name: /^Check$|^Проверить$/ }).waitFor();
      });

      const targets = await user.call<{ domain: { user_target_id: string; target: string }[] }>(
        'GET',
        '/main/user_target/get_targets',
      );
      targetId = targets.data.domain.find((t) => t.target === DOMAIN)?.user_target_id ?? '';
      expect(targetId).not.toBe('');
      const txt = await user.call<{ value: string }>('POST', '/main/user_target/get_verification_txt', {
        target_type: 'domain',
        user_target_id: targetId,
      });
      expect(await page.getByRole('textbox', { name: 'Record value' }).inputValue()).toBe(txt.data.value);
      expect(await page.getByRole('textbox', { name: 'Record name 2' }).inputValue()).toBe(
        `_perimeter.${DOMAIN}`,
      );
      lab.setTxt(`_perimeter.${DOMAIN}`, [txt.data.value]);
      await page.getByRole('button', { name: 'Check' }).click();
      await page.getByText('Verification passed').waitFor();
    });

    it('runs a full scan: the progress bar moves through the stages to done without a reload', async () => {
      await page.getByRole('button', { name: 'Next' }).click();
      await page.getByRole('radio', { name: 'Full scan' }).check();
      await page.getByRole('button', { name: 'Next' }).click();
      await page.evaluate(() => {
        (window as unknown as { noReload: boolean }).noReload = true;
      });
      await page.getByRole('button', { name: 'Create and start' }).click();
      await page.waitForURL(/\/scans\/past-scans\/[0-9a-f-]+$/);
      scanId = page.url().split('/').pop() as string;

      // Sample the live progress bar and the stage list until the scan is done.
      const stageList = page.getByRole('list', { name: 'Scan stages' });
      const states = new Set<string>();
      const active = new Set<string>();
      const values: number[] = [];
      const bar = page.getByRole('progressbar', { name: 'Scan progress' }).first();
      const until = Date.now() + 180_000;
      let status = '';
      while (Date.now() < until && status !== 'done') {
        const items = await stageList
          .getByRole('listitem')
          .allTextContents()
          .catch(() => []);
        if (items.length) states.add(items.join(' · '));
        for (const item of items) if (item.includes('In progress')) active.add(item);
        const now = await bar.getAttribute('aria-valuenow', { timeout: 500 }).catch(() => null);
        if (now !== null) values.push(Number(now));
        status = (await user.call<TScanProgress>('GET', `/main/get_user_abstract_scan_progress?id=${scanId}`))
          .data.status;
        await page.waitForTimeout(150);
      }
      expect(status).toBe('done');
      // The page follows without a reload: the bar reaches 100 and every stage is done by itself.
      await expect.poll(() => bar.getAttribute('aria-valuenow'), { timeout: 20_000 }).toBe('100');
      await expect
        .poll(
          async () =>
            (await stageList.getByRole('listitem').allTextContents()).every((s) => s.endsWith('Done')),
          {
            timeout: 20_000,
          },
        )
        .toBe(true);
      values.push(100);
      // It moved while on screen: a value or a stage in progress was seen before the end.
      expect(new Set(values).size, `progress values seen: ${values.join(',')}`).toBeGreaterThan(1);
      expect(
        active.size > 0 || values.some((v) => v > 0 && v < 100),
        `nothing in progress was seen: ${[...states].join(' | ')} / ${values.join(',')}`,
      ).toBe(true);
      expect(await page.evaluate(() => (window as unknown as { noReload?: boolean }).noReload)).toBe(true);
      await shots.capture('scan-detail');
    });

    it('downloads the PDF report under the server file name; pdftotext finds the findings', async () => {
      const top = (await events('exploit_scanner', { sort_key: 'severity', sort_order: 'desc' }, 5)).items;
      expect(top.length).toBeGreaterThan(0);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('group', { name: 'Download the report' }).getByRole('button', { name: 'PDF' }).click(),
      ]);
      expect(download.suggestedFilename()).toMatch(/\.pdf$/);
      const file = path.join(SCREENSHOT_DIR, '..', download.suggestedFilename());
      await download.saveAs(file);
      const text = spawnSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
      expect(text.status, text.stderr).toBe(0);
      const flat = text.stdout.replace(/\s+/g, ' ');
      for (const e of top) {
        if (e.scan_subclass !== 'exploit_scanner') continue;
        expect(flat, e.name).toContain(e.name.replace(/\s+/g, ' '));
      }
      expect(flat).toContain(DOMAIN);
    });

    async function allEvents(sub: TEvent['scan_subclass']): Promise<TEvent[]> {
      const out: TEvent[] = [];
      for (let offset = 0; ; offset += 100) {
        const res = await user.call<TPage<TEvent>>(
          'POST',
          `/main/get_one_user_abstract_scan_events?limit=100&offset=${offset}`,
          { scan_subclass: sub, id: scanId },
        );
        out.push(...res.data.items);
        if (out.length >= res.data.total || res.data.items.length === 0) return out;
      }
    }

    /** What a full scan of the domain must report (packages/lab/expected.json), one key per finding. */
    function expectedKeys(sub: TEvent['scan_subclass']): string[] {
      const inDomain = (host: string) => host === DOMAIN || host.endsWith(`.${DOMAIN}`);
      return lab
        .expected()
        .scanFindings.flatMap((f) => {
          if (f.subclass !== sub) return [];
          if (f.subclass === 'exploit_scanner') return inDomain(f.host) ? [`${f.templateId}@${f.host}`] : [];
          if (f.subclass === 'exploit_db') return inDomain(f.host) ? [`${f.cve}@${f.host}`] : [];
          return f.mainDomain === DOMAIN ? [f.email] : [];
        })
        .sort();
    }

    function keyOf(e: TEvent): string {
      if (e.scan_subclass === 'exploit_scanner') return `${e.template_id}@${e.host}`;
      if (e.scan_subclass === 'exploit_db') return `${e.cve}@${e.host}`;
      return e.email;
    }

    /** Ids of the rows the events table shows, in order. */
    const rowIds = () =>
      page
        .locator('[data-testid^="event-"]')
        .evaluateAll((els) => els.map((e) => (e.getAttribute('data-testid') ?? '').slice('event-'.length)));

    /** The table shows exactly what the API answers for the same request, in the same order. */
    async function expectRows(sub: TEvent['scan_subclass'], body: Record<string, unknown>, limit: number) {
      const want = await events(sub, body, limit);
      await expect.poll(rowIds, { timeout: 30_000 }).toEqual(want.items.map((e) => e.id));
      return want;
    }

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

    /** Clicks every sortable header twice (both directions) and compares the rows with the API. */
    async function checkSorting(sub: TEvent['scan_subclass'], limit: number) {
      for (const [title, key] of SORTS[sub]) {
        // A heading may hold two sort buttons (the CVE tab's date pairs): the button names the field.
        const header = page.getByRole('table').first().getByRole('button', { name: title, exact: true });
        for (let i = 0; i < 2; i++) {
          await header.click();
          const order = new URL(page.url()).searchParams.get('order') ?? 'desc';
          await expect
            .poll(() => header.locator('xpath=ancestor::th').getAttribute('aria-sort'))
            .toBe(order === 'asc' ? 'ascending' : 'descending');
          await expectRows(sub, { sort_key: key, sort_order: order }, limit);
        }
      }
    }

    async function chooseSeverity(name: string) {
      await page.getByRole('combobox', { name: 'Severity' }).click();
      await page.getByRole('option', { name }).click();
      await page.keyboard.press('Escape');
    }

    it('the vulnerabilities tab lists the scan findings; each column sorts and each filter narrows them as the API does', async () => {
      await go(`/events/vulnerabilities/${scanId}`);
      const all = await expectRows(
        'exploit_scanner',
        { sort_key: 'severity_ordering', sort_order: 'desc' },
        10,
      );
      // Exactly the lab's expected vulnerabilities of the domain: none missing, none extra.
      const want = expectedKeys('exploit_scanner');
      expect([...new Set((await allEvents('exploit_scanner')).map(keyOf))].sort()).toEqual(want);
      expect(all.total).toBeGreaterThan(10);
      await page.getByText(`Findings: ${all.total}`).waitFor();
      // The lab's planted issues are there: the exposed git config of app.acme.test, for one.
      const git = await events(
        'exploit_scanner',
        { subdomain_filter_opt: { subdomain_filter: 'app', is_contains: false } },
        50,
      );
      expect(
        git.items.some((e) => e.scan_subclass === 'exploit_scanner' && e.template_id.includes('git')),
      ).toBe(true);
      await shots.capture('events-vulnerabilities');
      await checkSorting('exploit_scanner', 10);

      const sort = {
        sort_key: 'add_ts',
        sort_order: new URL(page.url()).searchParams.get('order') ?? 'desc',
      };
      await chooseSeverity('High');
      await expectRows('exploit_scanner', { ...sort, severity: ['high'] }, 10);
      await page.getByRole('textbox', { name: 'Subdomain' }).fill('app');
      await page.getByRole('textbox', { name: 'Subdomain' }).press('Enter');
      await expectRows(
        'exploit_scanner',
        { ...sort, severity: ['high'], subdomain_filter_opt: { subdomain_filter: 'app', is_contains: true } },
        10,
      );
      await page
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
      await page.getByRole('textbox', { name: 'Main domain' }).fill('acme');
      await page.getByRole('textbox', { name: 'Main domain' }).press('Enter');
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
      await page
        .getByRole('group', { name: 'Main domain: how to match' })
        .getByRole('button', { name: 'Equals' })
        .click();
      await expect.poll(rowIds).toEqual([]);
      await page.getByRole('button', { name: 'Clear filters' }).click();
      await expectRows('exploit_scanner', sort, 10);
    });

    it('a finding shows how to reproduce it with a curl command; resolving it offers Undo, which reopens it', async () => {
      await go(`/events/vulnerabilities/${scanId}`);
      // The first web finding on the page (others reproduce with nc, dig or openssl).
      const first = (
        await expectRows('exploit_scanner', { sort_key: 'severity_ordering', sort_order: 'desc' }, 10)
      ).items.find((e) => e.scan_subclass === 'exploit_scanner' && e.evidence?.curl.startsWith('curl '));
      if (first?.scan_subclass !== 'exploit_scanner') throw new Error('no vulnerability to open');
      await page.getByTestId(`event-${first.id}`).getByRole('button', { name: first.name }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByText('How to reproduce').waitFor();
      await dialog.getByText('curl command').first().waitFor();
      expect(first.evidence?.curl).toMatch(/^curl /);
      expect(await dialog.textContent()).toContain((first.evidence?.curl ?? '').slice(0, 40));
      await dialog.getByRole('button', { name: 'Copy curl command' }).waitFor();
      await shots.capture('events-details', async () => {
        await page.getByTestId(`event-${first.id}`).getByRole('button', { name: /./ }).first().click();
        await page.getByRole('dialog').waitFor();
        // Let the dialog finish fading in: axe measures contrast on what is painted.
        await page.waitForTimeout(500);
      });

      const before = (await events('exploit_scanner', { hide_resolved: true })).total;
      await dialog.getByRole('combobox', { name: /^Reason/ }).click();
      await page.getByRole('option', { name: 'False positive' }).click();
      await dialog.getByRole('button', { name: 'Mark as resolved' }).click();
      await page.getByText('Marked as resolved.').first().waitFor();
      expect((await events('exploit_scanner', { hide_resolved: true })).total).toBe(before - 1);
      await page.getByRole('button', { name: 'Undo' }).click();
      await page.getByText('Change undone.').waitFor();
      await expect
        .poll(async () => (await events('exploit_scanner', { hide_resolved: true })).total)
        .toBe(before);
    });

    it('the CVE tab lists the known-exploit matches; sorting, severity and existence filters match the API', async () => {
      await go(`/events/cve/${scanId}`);
      const all = await expectRows('exploit_db', { sort_key: 'severity', sort_order: 'desc' }, 20);
      expect([...new Set((await allEvents('exploit_db')).map(keyOf))].sort()).toEqual(
        expectedKeys('exploit_db'),
      );
      expect(all.total).toBeGreaterThan(20);
      await page.getByText(`Findings: ${all.total}`).waitFor();
      // Apache 2.4.49 of app.acme.test matches CVE-2021-41773.
      const apache = await events(
        'exploit_db',
        { subdomain_filter_opt: { subdomain_filter: 'app', is_contains: false } },
        100,
      );
      expect(apache.items.some((e) => e.scan_subclass === 'exploit_db' && e.cve === 'CVE-2021-41773')).toBe(
        true,
      );
      await shots.capture('events-cve');
      await checkSorting('exploit_db', 20);
      const sort = {
        sort_key: 'add_ts',
        sort_order: new URL(page.url()).searchParams.get('order') ?? 'desc',
      };
      await chooseSeverity('Critical');
      await expectRows('exploit_db', { ...sort, severity: ['critical'] }, 20);
      await page.getByRole('combobox', { name: 'Known vulnerabilities' }).click();
      await page.getByRole('option', { name: 'With vulnerabilities' }).click();
      await expectRows(
        'exploit_db',
        { ...sort, severity: ['critical'], vulnerabilities_existence: 'with' },
        20,
      );
      await page.getByRole('button', { name: 'Clear filters' }).click();
      await expectRows('exploit_db', sort, 20);
    });

    it('the leaks tab lists the leaked accounts of the domain, masked; sorting and the e-mail filter match the API', async () => {
      await go(`/events/leaks/${scanId}`);
      const all = await expectRows('leakcheck', { sort_key: 'add_ts', sort_order: 'desc' }, 10);
      const corpus = lab.expected().leakCorpus.filter((l) => l.email.endsWith(`@${DOMAIN}`));
      expect((await allEvents('leakcheck')).map(keyOf).sort()).toEqual(expectedKeys('leakcheck'));
      expect(all.total).toBeGreaterThan(0);
      await page.getByText(`Findings: ${all.total}`).waitFor();
      for (const e of all.items) {
        if (e.scan_subclass !== 'leakcheck') continue;
        const leaked = corpus.find((l) => l.email === e.email);
        expect(leaked, e.email).toBeDefined();
        // Never the clear password in the page.
        expect(await page.content()).not.toContain(`>${leaked?.password}<`);
      }
      await shots.capture('events-leaks');
      await checkSorting('leakcheck', 10);
      const sort = {
        sort_key: 'add_ts',
        sort_order: new URL(page.url()).searchParams.get('order') ?? 'desc',
      };
      const one = all.items[0];
      if (one?.scan_subclass !== 'leakcheck') throw new Error('no leak');
      await page.getByRole('textbox', { name: 'E-mail', exact: true }).fill(one.email);
      await page.getByRole('textbox', { name: 'E-mail', exact: true }).press('Enter');
      await expectRows(
        'leakcheck',
        { ...sort, email_filter_opt: { email_filter: one.email, is_contains: true } },
        10,
      );
      await page
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

    it('creates a schedule with the default window; its runs appear in the 30-day overview', async () => {
      await go('/schedule-scan');
      const form = page.getByRole('form', { name: 'Add a schedule' });
      expect(await form.getByLabel('Window starts').inputValue()).toBe('02:00');
      expect(await form.getByLabel('Window ends').inputValue()).toBe('06:00');
      expect(await form.getByRole('combobox', { name: 'Time zone' }).inputValue()).toBe('Europe/Berlin');
      await form.getByLabel(/^Name/).fill('Weekly lab');
      await form.getByRole('combobox', { name: 'Targets' }).click();
      await page.getByRole('option', { name: DOMAIN }).click();
      await page.keyboard.press('Escape');
      await form.getByRole('button', { name: 'Add schedule' }).click();
      await page.getByText('Schedule saved.').first().waitFor();

      const overview = await user.call<{ days: { date: string; runs: { name: string }[] }[] }>(
        'GET',
        '/users/get_schedule_overview?by_end_of_month=false&days_ahead=30',
      );
      const planned = overview.data.days.filter((d) => d.runs.some((r) => r.name === 'Weekly lab'));
      // Saturdays in the next 30 days: four or five.
      expect(planned.length).toBeGreaterThanOrEqual(4);
      const calendar = page.getByTestId('schedule-calendar');
      for (const day of planned) {
        await calendar.locator(`[data-date="${day.date}"]`).getByText('Weekly lab').waitFor();
      }
      await shots.capture('schedules');
    });

    it('cancels a second scan mid-run from its page; the stages show where it stopped', async () => {
      await go('/scans');
      await page.getByRole('radio', { name: new RegExp(DOMAIN.replace('.', '\\.')) }).check();
      await page.getByRole('button', { name: 'Next' }).click();
      // A verified target skips the verification step.
      await page.getByRole('radio', { name: 'Full scan' }).waitFor();
      await page.getByRole('button', { name: 'Next' }).click();
      await page.getByRole('button', { name: 'Create only' }).click();
      await page.waitForURL(/\/scans\/past-scans\/[0-9a-f-]+$/);
      const second = page.url().split('/').pop() as string;
      expect(second).not.toBe(scanId);
      await page.getByText('The scan has not been started yet.', { exact: false }).waitFor();
      await page.getByRole('button', { name: 'Start' }).click();
      // Cancel mid-run: once a worker is inside a stage.
      const progressOf = async () =>
        (await user.call<TScanProgress>('GET', `/main/get_user_abstract_scan_progress?id=${second}`)).data;
      await expect
        .poll(
          async () => {
            const p = await progressOf();
            return p.status === 'running' && p.stage !== null && p.percent > 0;
          },
          { interval: 50, timeout: 60_000 },
        )
        .toBe(true);
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page
        .getByRole('dialog', { name: 'Cancel this scan?' })
        .getByRole('button', { name: 'Cancel scan' })
        .click();
      await expect.poll(async () => (await progressOf()).status, { timeout: 10_000 }).toBe('canceled');
      const ended = await progressOf();
      expect(ended.percent).toBeLessThan(100);
      await page.getByText('Stopped here').waitFor({ timeout: 20_000 });
      await shots.capture('scan-detail-canceled');
    });

    it('lists both scans on Reports with their statuses', async () => {
      await go('/scans/past-scans');
      await page.getByText('Done', { exact: true }).first().waitFor();
      await page.getByText('Canceled', { exact: true }).first().waitFor();
      await shots.capture('reports');
    });

    it('captures Home, Analytics and FAQ with data in every theme and language', async () => {
      await go('/');
      await shots.capture('home-dashboard');
      await go(`/analytics?target=${targetId}`);
      await shots.capture('analytics');
      await go('/faq');
      await shots.capture('faq');
    });

    it('reports no serious or critical axe-core violations on any captured page', () => {
      expect(shots.summary()).toEqual([]);
    });
  },
);
