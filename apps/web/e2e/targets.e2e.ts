import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS, missingBrowserReason } from './support/browser.ts';
import { createCapture, recordFailure, settle } from './support/capture.ts';
import { type Lab, labServerEnv, startE2eLab } from './support/lab.ts';
import { startServer, type TServer } from './support/server.ts';
import { startSmtp } from './support/smtp.ts';
import { prepareUser, type TPreparedUser } from './support/user.ts';

/**
 * Issue 13 in Debian's Chromium against the real server and the lab: the targets screen (re-verify,
 * disable, enable again, the detail with its history), and scheduled scans reached from the menu,
 * from a scan and from a target. Pages are captured in light/dark × en/ru with axe-core on each.
 */
const DOMAIN = 'acme.test';
const skipReason = missingBrowserReason();
if (skipReason) console.warn(`targets e2e skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)('targets screen and schedules in reach, in Chromium', () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let lab: Lab;
  let server: TServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let user: TPreparedUser;
  let shots: ReturnType<typeof createCapture>;
  let targetId = '';

  const nav = () => page.getByRole('navigation', { name: 'Main navigation' });
  const row = () => page.getByTestId(`target-${targetId}`);
  const action = async (name: string) => {
    await page.getByRole('button', { name: `Actions for ${DOMAIN}` }).click();
    await page.getByRole('menuitem', { name }).click();
  };

  beforeAll(async () => {
    smtp = await startSmtp();
    lab = await startE2eLab('127.0.216');
    server = await startServer(smtp.port, labServerEnv(lab));
    user = await prepareUser(server, smtp, `targets-${Date.now()}@example.com`);
    server.cli(['plans', 'assign', user.email, 'business']);
    const added = await user.call<{ added: { user_target_id: string }[] }>(
      'POST',
      '/main/user_target/add_targets',
      { targets: [DOMAIN] },
    );
    expect(added.status).toBe(201);
    targetId = added.data.added[0]?.user_target_id ?? '';
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    context = await browser.newContext({
      viewport: { width: 1440, height: 900 },
      locale: 'en-GB',
      timezoneId: 'Europe/Berlin',
    });
    page = await context.newPage();
    shots = createCapture(page);
    await user.signIn(page);
    await context.addCookies([{ name: 'cookieConsent', value: 'true', url: server.url }]);
  });

  afterEach((ctx) => recordFailure(ctx.task, page, 'targets', () => server.logs()));

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
    await lab?.stop();
    await smtp?.close();
  });

  it('the menu opens Targets; a target is re-verified, disabled and enabled again', async () => {
    await page.goto(`${server.url}/`);
    await settle(page);
    await nav().getByRole('link', { name: 'Targets' }).click();
    await page.waitForURL('**/targets');
    await settle(page);
    await row().getByTestId('target-status-unverified').waitFor();
    await shots.capture('targets');

    // The proof is published: "Check verification" from the row's menu verifies it.
    const txt = await user.call<{ value: string }>('POST', '/main/user_target/get_verification_txt', {
      target_type: 'domain',
      user_target_id: targetId,
    });
    lab.setTxt(`_perimeter.${DOMAIN}`, [txt.data.value]);
    await action('Check verification');
    await page.getByText(`${DOMAIN} is verified: it can be scanned.`).waitFor();
    await row().getByTestId('target-status-verified').waitFor();

    await action('Disable');
    const dialog = page.getByRole('dialog', { name: `Disable ${DOMAIN}?` });
    await shots.capture('targets-disable-dialog', async () => {
      await page.getByRole('button', { name: /^(Actions for|Действия с) acme\.test$/ }).click();
      await page.getByRole('menuitem', { name: /^(Disable|Отключить)$/ }).click();
      await page.getByRole('dialog').waitFor();
    });
    await dialog.getByRole('button', { name: 'Disable' }).click();
    await page.getByText(`${DOMAIN} is disabled. Its scans and findings are kept.`).waitFor();
    await page.getByTestId('targets-empty').waitFor();
    const live = await user.call<{ domain: unknown[] }>('GET', '/main/user_target/get_targets');
    expect(live.data.domain).toEqual([]);

    await page.getByRole('button', { name: 'Disabled' }).click();
    await page.waitForURL('**/targets?view=disabled');
    await row().getByTestId('target-status-disabled').waitFor();
    await shots.capture('targets-disabled');
    await action('Enable again');
    await page.getByText(`${DOMAIN} is enabled again. Check its verification before scanning it.`).waitFor();
    await page.getByText('No disabled targets.').waitFor();
    await page.getByRole('button', { name: 'Active' }).click();
    await row().getByTestId('target-status-unverified').waitFor();

    // The detail: re-verify there; the history lists every step, newest first.
    await row().getByRole('link', { name: DOMAIN }).click();
    await page.waitForURL(`**/targets/domain/${targetId}`);
    await page.getByTestId('target-publish').waitFor();
    await page.getByRole('button', { name: 'Check verification' }).click();
    await page.getByTestId('target-status-verified').waitFor();
    await expect
      .poll(async () =>
        (await page.getByTestId('target-history').getByRole('listitem').allInnerTexts()).map(
          (text) => text.split('\n')[0],
        ),
      )
      .toEqual(['Verified', 'Enabled again', 'Disabled', 'Verified', 'Added']);
    await shots.capture('target-detail');
  });

  it('reaches scheduled scans from the menu, from a target and from a scan; Events opens its first tab', async () => {
    await nav().getByRole('link', { name: 'Scheduled scans' }).click();
    await page.waitForURL('**/schedule-scan');
    await page.getByRole('heading', { level: 1, name: 'Scan schedules' }).waitFor();
    expect(await nav().getByRole('link', { name: 'Scheduled scans' }).getAttribute('aria-current')).toBe(
      'page',
    );

    await nav().getByRole('link', { name: 'Events' }).click();
    await page.waitForURL('**/events/vulnerabilities');
    await settle(page);
    await page.getByRole('tab', { name: 'Known exploits (CVE)' }).click();
    await page.waitForURL('**/events/cve');
    expect(await nav().getByRole('link', { name: 'Events' }).getAttribute('aria-current')).toBe('page');

    // From the target: "Scan now" starts a full scan and opens it; the scan links to a schedule.
    await page.goto(`${server.url}/targets/domain/${targetId}`);
    await settle(page);
    await page.getByRole('button', { name: 'Scan now' }).click();
    await page.waitForURL(/\/scans\/past-scans\/[0-9a-f-]+$/);
    const scanId = page.url().split('/').pop() as string;
    await page.getByRole('link', { name: 'Schedule scans' }).click();
    await page.waitForURL(`**/schedule-scan?target_type=domain&user_target_id=${targetId}`);
    const form = page.getByRole('form', { name: 'Add a schedule' });
    await form.getByText(DOMAIN).waitFor();
    const cancel = await user.call('POST', '/main/cancel_running_abstract_scan', { id: scanId });
    expect([200, 409]).toContain(cancel.status);

    // The targets screen links to the schedules too.
    await page.goto(`${server.url}/targets`);
    await settle(page);
    await page.getByRole('main').getByRole('link', { name: 'Scheduled scans' }).click();
    await page.waitForURL('**/schedule-scan');
    expect(shots.summary()).toEqual([]);
  });
});
