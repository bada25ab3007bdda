import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { TEvent, TScanProgress } from '@perimeter/contracts';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS, missingBrowserReason } from './support/browser.ts';
import { createCapture, SCREENSHOT_DIR, settle } from './support/capture.ts';
import { datasetPath, type Lab, labServerEnv, loadIntel, startE2eLab } from './support/lab.ts';
import { ensureBuilt, startServer, type TServer } from './support/server.ts';
import { startSmtp } from './support/smtp.ts';
import { prepareUser, type TPreparedUser } from './support/user.ts';

/**
 * The scans journey of issue 7 in Debian's Chromium against the real server (API, workers and
 * scheduler in one process), the lab's DNS and planted services, and the CVE and leak data loaded
 * with the operator commands: add a lab domain, verify it, run a full scan and watch it, read the
 * events tabs, download the PDF, schedule, cancel a second scan. Every page of the issue is
 * captured in light/dark × en/ru with axe-core run on each.
 */
const DOMAIN = 'acme.test';
const browserMissing = missingBrowserReason();
const cveDir = datasetPath('cve');
const retireDir = datasetPath('retirejs');
const skipReason =
  browserMissing ?? (cveDir && retireDir ? null : '../shared/datasets is not beside the repository');
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
      loadIntel(server, lab, cveDir as string, retireDir as string);
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

    afterEach(async (ctx) => {
      if (ctx.task.result?.state !== 'fail' || !page) return;
      mkdirSync(SCREENSHOT_DIR, { recursive: true });
      const name = ctx.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
      await page
        .screenshot({ path: path.join(SCREENSHOT_DIR, `FAILED-scans-${name}.png`) })
        .catch(() => undefined);
      console.error(`failed at ${page.url()}\nserver log tail:\n${server.logs().slice(-3000)}`);
    });

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

      // Sample the live progress bar until the scan is done.
      const seen = new Set<string>();
      const values: number[] = [];
      const bar = page.getByRole('progressbar', { name: 'Scan progress' }).first();
      const until = Date.now() + 180_000;
      let status = '';
      while (Date.now() < until && status !== 'done') {
        const stage = await page
          .getByRole('list', { name: 'Scan stages' })
          .getByRole('listitem')
          .filter({ hasText: 'In progress' })
          .first()
          .textContent({ timeout: 500 })
          .catch(() => null);
        if (stage) seen.add(stage);
        const now = await bar.getAttribute('aria-valuenow', { timeout: 500 }).catch(() => null);
        if (now !== null) values.push(Number(now));
        status = (await user.call<TScanProgress>('GET', `/main/get_user_abstract_scan_progress?id=${scanId}`))
          .data.status;
        await page.waitForTimeout(150);
      }
      expect(status).toBe('done');
      // The page follows without a reload: its bar reaches 100 by itself.
      await expect.poll(() => bar.getAttribute('aria-valuenow'), { timeout: 20_000 }).toBe('100');
      expect(new Set(values).size, `progress values seen: ${values.join(',')}`).toBeGreaterThan(1);
      expect(seen.size, `stages seen: ${[...seen].join(' | ')}`).toBeGreaterThan(1);
      expect(await page.evaluate(() => (window as unknown as { noReload?: boolean }).noReload)).toBe(true);
      await shots.capture('scan-detail');
    });
  },
);
