import { spawnSync } from 'node:child_process';
import path from 'node:path';
import type { TScanProgress } from '@perimeter/contracts';
import { describe, expect, it } from 'vitest';
import { eventsTabsTests } from './scans-events.ts';
import { missingBrowserReason } from './support/browser.ts';
import { SCREENSHOT_DIR } from './support/capture.ts';
import { useScansJourney } from './support/scans-journey.ts';

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

describe.skipIf(skipReason !== null)(
  'scans journey in Chromium against the server, workers and the lab',
  () => {
    const j = useScansJourney(DOMAIN, '127.0.161');

    it('adds a lab domain on /scans; verification fails, passes once the lab publishes the TXT record', async () => {
      await j.go('/scans');
      await j.shots.capture('new-scan');
      await j.page
        .getByRole('button', { name: 'Add a target' })
        .click()
        .catch(() => undefined);
      await j.page.getByRole('radio', { name: 'Domain' }).check();
      await j.page.getByRole('textbox', { name: /Domain name/ }).fill('not a domain');
      await j.page.getByText(/This is not a valid domain name/).waitFor();
      await j.page.getByRole('textbox', { name: /Domain name/ }).fill(DOMAIN);
      // A new target goes straight to its verification step.
      await j.page.getByRole('button', { name: 'Add target' }).click();
      await j.page.getByRole('heading', { name: 'Step 2 of 4: Verification' }).waitFor();
      await j.page.getByRole('button', { name: 'Check' }).click();
      await j.page.getByText('Not verified yet').waitFor();
      await j.page.getByText('What to fix').waitFor();
      expect(await j.page.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
      await j.shots.capture('new-scan-verification', async () => {
        await j.page.getByRole('radio', { name: new RegExp(DOMAIN.replace('.', '\\.')) }).check();
        await j.page.getByRole('button', { name: /Next|Далее/ }).click();
        await j.page.getByRole('button', { name: /^Check$|^Проверить$/ }).waitFor();
      });

      const targets = await j.user.call<{ domain: { user_target_id: string; target: string }[] }>(
        'GET',
        '/main/user_target/get_targets',
      );
      j.targetId = targets.data.domain.find((t) => t.target === DOMAIN)?.user_target_id ?? '';
      expect(j.targetId).not.toBe('');
      const txt = await j.user.call<{ value: string }>('POST', '/main/user_target/get_verification_txt', {
        target_type: 'domain',
        user_target_id: j.targetId,
      });
      expect(await j.page.getByRole('textbox', { name: 'Record value' }).inputValue()).toBe(txt.data.value);
      expect(await j.page.getByRole('textbox', { name: 'Record name 2' }).inputValue()).toBe(
        `_perimeter.${DOMAIN}`,
      );
      j.lab.setTxt(`_perimeter.${DOMAIN}`, [txt.data.value]);
      await j.page.getByRole('button', { name: 'Check' }).click();
      await j.page.getByText('Verification passed').waitFor();
    });

    it('runs a full scan: the progress bar moves through the stages to done without a reload', async () => {
      await j.page.getByRole('button', { name: 'Next' }).click();
      await j.page.getByRole('radio', { name: 'Full scan' }).check();
      await j.page.getByRole('button', { name: 'Next' }).click();
      await j.page.evaluate(() => {
        (window as unknown as { noReload: boolean }).noReload = true;
      });
      // The lab answers on loopback in microseconds and a full scan of it can end within a poll or
      // two: its sites answer 150 ms late during this scan (a slow site), so the scan lasts long
      // enough for its progress to be watched.
      j.lab.setHttpDelay(150);
      let status = '';
      // Sample the live progress bar and the stage list until the scan is done.
      const stageList = j.page.getByRole('list', { name: 'Scan stages' });
      const states = new Set<string>();
      const active = new Set<string>();
      const values: number[] = [];
      const bar = j.page.getByRole('progressbar', { name: 'Scan progress' }).first();
      const until = Date.now() + 180_000;
      try {
        await j.page.getByRole('button', { name: 'Create and start' }).click();
        await j.page.waitForURL(/\/scans\/past-scans\/[0-9a-f-]+$/);
        j.scanId = j.page.url().split('/').pop() as string;

        while (Date.now() < until && status !== 'done') {
          const items = await stageList
            .getByRole('listitem')
            .allTextContents()
            .catch(() => []);
          if (items.length) states.add(items.join(' · '));
          for (const item of items) if (item.includes('In progress')) active.add(item);
          const now = await bar.getAttribute('aria-valuenow', { timeout: 500 }).catch(() => null);
          if (now !== null) values.push(Number(now));
          status = (
            await j.user.call<TScanProgress>('GET', `/main/get_user_abstract_scan_progress?id=${j.scanId}`)
          ).data.status;
          await j.page.waitForTimeout(150);
        }
      } finally {
        j.lab.setHttpDelay(0);
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
      expect(await j.page.evaluate(() => (window as unknown as { noReload?: boolean }).noReload)).toBe(true);
      await j.shots.capture('scan-detail');
    });

    it('downloads the PDF report under the server file name; pdftotext finds the findings', async () => {
      const top = (await j.events('exploit_scanner', { sort_key: 'severity', sort_order: 'desc' }, 5)).items;
      expect(top.length).toBeGreaterThan(0);
      const [download] = await Promise.all([
        j.page.waitForEvent('download'),
        j.page
          .getByRole('group', { name: 'Download the report' })
          .getByRole('button', { name: 'PDF' })
          .click(),
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

    eventsTabsTests(j);

    it('creates a schedule with the default window; its runs appear in the 30-day overview', async () => {
      await j.go('/schedule-scan');
      const form = j.page.getByRole('form', { name: 'Add a schedule' });
      expect(await form.getByLabel('Window starts').inputValue()).toBe('02:00');
      expect(await form.getByLabel('Window ends').inputValue()).toBe('06:00');
      expect(await form.getByRole('combobox', { name: 'Time zone' }).inputValue()).toBe('Europe/Berlin');
      await form.getByLabel(/^Name/).fill('Weekly lab');
      await form.getByRole('combobox', { name: 'Targets' }).click();
      await j.page.getByRole('option', { name: DOMAIN }).click();
      await j.page.keyboard.press('Escape');
      await form.getByRole('button', { name: 'Add schedule' }).click();
      await j.page.getByText('Schedule saved.').first().waitFor();

      const overview = await j.user.call<{ days: { date: string; runs: { name: string }[] }[] }>(
        'GET',
        '/users/get_schedule_overview?by_end_of_month=false&days_ahead=30',
      );
      const planned = overview.data.days.filter((d) => d.runs.some((r) => r.name === 'Weekly lab'));
      // Saturdays in the next 30 days: four or five.
      expect(planned.length).toBeGreaterThanOrEqual(4);
      const calendar = j.page.getByTestId('schedule-calendar');
      for (const day of planned) {
        await calendar.locator(`[data-date="${day.date}"]`).getByText('Weekly lab').waitFor();
      }
      await j.shots.capture('schedules');
    });

    it('cancels a second scan mid-run from its page; the stages show where it stopped', async () => {
      await j.go('/scans');
      await j.page.getByRole('radio', { name: new RegExp(DOMAIN.replace('.', '\\.')) }).check();
      await j.page.getByRole('button', { name: 'Next' }).click();
      // A verified target skips the verification step.
      await j.page.getByRole('radio', { name: 'Full scan' }).waitFor();
      await j.page.getByRole('button', { name: 'Next' }).click();
      await j.page.getByRole('button', { name: 'Create only' }).click();
      await j.page.waitForURL(/\/scans\/past-scans\/[0-9a-f-]+$/);
      const second = j.page.url().split('/').pop() as string;
      expect(second).not.toBe(j.scanId);
      await j.page.getByText('The scan has not been started yet.', { exact: false }).waitFor();
      await j.page.getByRole('button', { name: 'Start' }).click();
      // Cancel mid-run: once a worker is inside a stage.
      const progressOf = async () =>
        (await j.user.call<TScanProgress>('GET', `/main/get_user_abstract_scan_progress?id=${second}`)).data;
      await expect
        .poll(
          async () => {
            const p = await progressOf();
            return p.status === 'running' && p.stage !== null && p.percent > 0;
          },
          { interval: 50, timeout: 60_000 },
        )
        .toBe(true);
      await j.page.getByRole('button', { name: 'Cancel' }).click();
      await j.page
        .getByRole('dialog', { name: 'Cancel this scan?' })
        .getByRole('button', { name: 'Cancel scan' })
        .click();
      await expect.poll(async () => (await progressOf()).status, { timeout: 10_000 }).toBe('canceled');
      const ended = await progressOf();
      expect(ended.percent).toBeLessThan(100);
      await j.page.getByText('Stopped here').waitFor({ timeout: 20_000 });
      await j.shots.capture('scan-detail-canceled');
    });

    it('lists both scans on Reports with their statuses', async () => {
      await j.go('/scans/past-scans');
      await j.page.getByText('Done', { exact: true }).first().waitFor();
      await j.page.getByText('Canceled', { exact: true }).first().waitFor();
      await j.shots.capture('reports');
    });

    it('captures Home, Analytics and FAQ with data in every theme and language', async () => {
      await j.go('/');
      await j.shots.capture('home-dashboard');
      await j.go(`/analytics?target=${j.targetId}`);
      await j.shots.capture('analytics');
      await j.go('/faq');
      await j.shots.capture('faq');
    });

    it('reports no serious or critical axe-core violations on any captured page', () => {
      expect(j.shots.summary()).toEqual([]);
    });
  },
);
