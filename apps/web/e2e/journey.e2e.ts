import * as OTPAuth from 'otpauth';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS, missingBrowserReason } from './support/browser.ts';
import {
  animationsDone,
  createCapture,
  PREFS_KEY,
  recordFailure,
  settle,
  THEME_LANGUAGE_DIRECTION_COMBOS,
} from './support/capture.ts';
import { startServer, type TServer } from './support/server.ts';
import { startSmtp } from './support/smtp.ts';

const skipReason = missingBrowserReason();
if (skipReason) console.warn(`web-e2e skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)('web journey in Chromium against the real server', () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let server: TServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let shots: ReturnType<typeof createCapture>;

  const email = `e2e-${Date.now()}@example.com`;
  let password = 'correct-horse-battery-9';
  let otpauthUrl = '';
  let recoveryCodes: string[] = [];
  let lastCounter = -1;

  /** A TOTP code from a time step not used before (the server refuses replays). */
  async function freshCode(): Promise<string> {
    const totp = OTPAuth.URI.parse(otpauthUrl);
    if (!(totp instanceof OTPAuth.TOTP)) throw new Error('not a TOTP uri');
    let counter = totp.counter();
    while (counter <= lastCounter) {
      await new Promise((r) => setTimeout(r, 500));
      counter = totp.counter();
    }
    lastCounter = counter;
    return totp.generate();
  }

  async function login(withPassword = password) {
    await page.goto(`${server.url}/login`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(withPassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/verify/two-factor/app');
  }

  async function logout() {
    await page.getByRole('button', { name: 'Your profile' }).click();
    await page.getByRole('menuitem', { name: 'Logout' }).click();
    await page.waitForURL('**/login');
  }

  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startServer(smtp.port);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    context = await browser.newContext({
      viewport: { width: 1440, height: 900 },
      locale: 'en-GB',
      timezoneId: 'Europe/Berlin',
    });
    page = await context.newPage();
    shots = createCapture(page, THEME_LANGUAGE_DIRECTION_COMBOS);
  });

  afterEach((ctx) => recordFailure(ctx.task, page, 'journey', () => server.logs()));

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
    await smtp?.close();
  });

  it('registers, verifies by the mailed link, accepts the terms, sets up 2FA and a time zone, lands on /', async () => {
    await page.goto(`${server.url}/login`);
    await settle(page);
    await shots.capture('login');
    await page.getByRole('button', { name: 'Accept All Cookies' }).click();
    await expect
      .poll(async () => (await context.cookies()).some((c) => c.name === 'cookieConsent'))
      .toBe(true);

    await page.goto(`${server.url}/register`);
    await settle(page);
    await shots.capture('register');
    await page.getByLabel('First name').fill('Ada');
    await page.getByLabel('Last name').fill('Lovelace');
    await page.getByLabel('Company').fill('Analytical Engines Ltd');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByLabel('Repeat the password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByTestId('register-done').waitFor();

    const [verifyLink] = await smtp.waitFor(
      email,
      /https?:\/\/[^\s"'<>]+\/account\/confirm-email\/verify\/[^\s"'<>]+/,
    );
    await page.goto(verifyLink);
    await page.getByText('Your e-mail address is confirmed.').waitFor();

    await page.goto(`${server.url}/login`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/account/agreement');
    await shots.capture('agreement');
    await page.getByLabel('I have read and accept the terms of service').check();
    await page.getByRole('button', { name: 'Accept and continue' }).click();

    await page.waitForURL('**/settings/two_factor_authentication/setup/intro');
    await shots.capture('two-factor-intro');
    await shots.capture('two-factor-qr', async () => {
      await page.getByTestId('twofa-start').click();
      await page.getByRole('img').first().waitFor();
      await page.getByTestId('totp-secret').waitFor();
    });
    otpauthUrl = (await page.getByTestId('otpauth-link').getAttribute('href')) ?? '';
    expect(otpauthUrl).toMatch(/^otpauth:\/\/totp\//);
    await page.getByLabel('6-digit code').fill(await freshCode());
    await page.getByTestId('twofa-confirm').click();
    const codes = page.getByTestId('recovery-codes');
    await codes.waitFor();
    recoveryCodes = (await codes.locator('li').allInnerTexts()).map((c) => c.trim()).filter(Boolean);
    expect(recoveryCodes.length).toBeGreaterThanOrEqual(5);
    await shots.captureInPlace('recovery-codes');
    await page.getByTestId('codes-continue').click();

    await page.waitForURL('**/account/timezone');
    await expect.poll(() => page.getByRole('combobox').inputValue()).toBe('Europe/Berlin');
    await shots.capture('timezone');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(`${server.url}/`);
    await page.getByTestId('home-greeting').waitFor();
    expect(await page.getByTestId('home-greeting').textContent()).toContain('Ada');
    await shots.capture('home');

    await page.goto(`${server.url}/account/account-details`);
    await settle(page);
    await shots.capture('account-details');
    await page.goto(`${server.url}/account/notifications`);
    await settle(page);
    await shots.capture('account-notifications');
    await page.goto(`${server.url}/no/such/page`);
    await settle(page);
    await shots.capture('not-found');
    await page.goto(`${server.url}/`);
    await settle(page);
  });

  it('logs out and logs in again with a TOTP code', async () => {
    await logout();
    await login();
    await shots.capture('two-factor-app');
    await page.getByLabel('6-digit code').fill(await freshCode());
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${server.url}/`);
    await page.getByTestId('home-greeting').waitFor();
  });

  it('logs in with a recovery code', async () => {
    await logout();
    await login();
    await page.getByRole('link', { name: 'Use a recovery code instead' }).click();
    await page.waitForURL('**/verify/two-factor/recovery');
    await shots.capture('two-factor-recovery');
    await page.getByLabel('Recovery code').fill(recoveryCodes[0]!);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${server.url}/`);
    await page.getByTestId('home-greeting').waitFor();
  });

  it('resets the password through the mailed link and signs in with the new one', async () => {
    await logout();
    await page.goto(`${server.url}/password_reset`);
    await settle(page);
    await shots.capture('forgot-password');
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByText('a reset link is on its way', { exact: false }).waitFor();

    const [resetLink] = await smtp.waitFor(
      email,
      /https?:\/\/[^\s"'<>]+\/account\/password\/reset\/confirm\/[^\s"'<>/]+\/[^\s"'<>]+/,
    );
    await page.goto(resetLink);
    await settle(page);
    await shots.capture('reset-confirm');
    password = 'a-brand-new-passphrase-42';
    await page.getByLabel('New password').fill(password);
    await page.getByLabel('Repeat the password').fill(password);
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByText('Your password has been changed.', { exact: false }).waitFor();

    await login(password);
    await page.getByLabel('6-digit code').fill(await freshCode());
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${server.url}/`);
  });

  it('shows the shell variants: horizontal menu, mini drawer, small screen, settings panel', async () => {
    const variants: {
      name: string;
      prefs: object;
      viewport?: { width: number; height: number };
      act?: () => Promise<void>;
    }[] = [
      { name: 'shell-horizontal', prefs: { menuOrientation: 'horizontal' } },
      { name: 'shell-mini-drawer', prefs: { miniDrawer: true } },
      { name: 'shell-container-teal', prefs: { container: true, presetColor: 'teal' } },
      {
        name: 'shell-settings-panel',
        prefs: { mode: 'dark' },
        act: async () => {
          await page.getByRole('button', { name: 'Interface settings' }).click();
          await page.getByRole('region', { name: 'Interface settings' }).waitFor();
        },
      },
      {
        name: 'shell-mobile-drawer',
        prefs: {},
        viewport: { width: 390, height: 844 },
        act: async () => {
          await page.getByRole('button', { name: 'Toggle menu' }).click();
          await page.locator('.MuiDrawer-modal .MuiDrawer-paper').waitFor();
          await animationsDone(page);
        },
      },
    ];
    for (const v of variants) {
      await page.setViewportSize(v.viewport ?? { width: 1440, height: 900 });
      await page.evaluate(
        ([key, prefs]) => localStorage.setItem(key as string, JSON.stringify(prefs)),
        [PREFS_KEY, v.prefs],
      );
      await page.reload();
      await settle(page);
      await v.act?.();
      await shots.inspect(v.name, 'en', v.name, false);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.evaluate((key) => localStorage.removeItem(key), PREFS_KEY);
  });

  it('reports no serious or critical axe-core violations on any captured page', () => {
    expect(shots.summary()).toEqual([]);
  });
});
