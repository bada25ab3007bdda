import { mkdirSync } from 'node:fs';
import path from 'node:path';
import * as OTPAuth from 'otpauth';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  CHROMIUM,
  CHROMIUM_ARGS,
  missingBrowserReason,
  seriousViolations,
  type TAxeViolation,
} from './support/browser.ts';
import { startServer, type TServer, webRoot } from './support/server.ts';
import { startSmtp } from './support/smtp.ts';

const SCREENSHOT_DIR = path.join(webRoot, 'artifacts', 'screenshots');
const PREFS_KEY = 'perimeter-ui-preferences';
const COMBOS = (['light', 'dark'] as const).flatMap((mode) =>
  (['en', 'ru'] as const).flatMap((lng) => (['ltr', 'rtl'] as const).map((dir) => ({ mode, lng, dir }))),
);
type TCombo = (typeof COMBOS)[number];
const DEFAULT_COMBO: TCombo = { mode: 'light', lng: 'en', dir: 'ltr' };

const skipReason = missingBrowserReason();
if (skipReason) console.warn(`web-e2e skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)('web journey in Chromium against the real server', () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let server: TServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const violations: { page: string; combo: string; list: TAxeViolation[] }[] = [];

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

  async function applyCombo(combo: TCombo) {
    await page.evaluate(
      ({ key, combo: c }) => {
        localStorage.setItem(key, JSON.stringify({ mode: c.mode, themeDirection: c.dir }));
        localStorage.setItem('locale', c.lng);
      },
      { key: PREFS_KEY, combo },
    );
  }

  async function settle() {
    await page.waitForLoadState('networkidle');
    await page.locator('h1').first().waitFor({ state: 'visible', timeout: 60_000 });
    await page.waitForTimeout(350);
  }

  /**
   * Screenshots the current page in light/dark × en/ru × LTR/RTL and runs axe-core on each.
   * `prepare` brings the page back to the state to capture after the reload.
   */
  async function capture(name: string, prepare: () => Promise<void> = async () => {}, combos = COMBOS) {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    for (const combo of combos) {
      await applyCombo(combo);
      await page.reload();
      await settle();
      await prepare();
      expect(await page.evaluate(() => document.documentElement.dir)).toBe(combo.dir);
      expect(await page.evaluate(() => document.documentElement.lang)).toBe(combo.lng);
      const tag = `${combo.lng}-${combo.mode}-${combo.dir}`;
      const list = await seriousViolations(page);
      if (list.length) violations.push({ page: name, combo: tag, list });
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-${tag}.png`), fullPage: true });
    }
    await applyCombo(DEFAULT_COMBO);
    await page.reload();
    await settle();
    await prepare();
  }

  /** For states that a reload would lose (recovery codes are shown once): the current combo only. */
  async function captureInPlace(name: string) {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const combo = await page.evaluate(
      () =>
        `${document.documentElement.lang}-${document.documentElement.style.colorScheme}-${document.documentElement.dir}`,
    );
    const list = await seriousViolations(page);
    if (list.length) violations.push({ page: name, combo, list });
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-${combo}.png`), fullPage: true });
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
  });

  // Leave a picture of the page for every failed step.
  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== 'fail' || !page) return;
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const name = ctx.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, `FAILED-${name}.png`) }).catch(() => undefined);
    console.error(`failed at ${page.url()}\nserver log tail:\n${server.logs().slice(-3000)}`);
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
    await smtp?.close();
  });

  it('registers, verifies by the mailed link, accepts the terms, sets up 2FA and a time zone, lands on /', async () => {
    await page.goto(`${server.url}/login`);
    await settle();
    await capture('login');
    await page.getByRole('button', { name: 'Accept All Cookies' }).click();
    await expect
      .poll(async () => (await context.cookies()).some((c) => c.name === 'cookieConsent'))
      .toBe(true);

    await page.goto(`${server.url}/register`);
    await settle();
    await capture('register');
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
    await capture('agreement');
    await page.getByLabel('I have read and accept the terms of service').check();
    await page.getByRole('button', { name: 'Accept and continue' }).click();

    await page.waitForURL('**/settings/two_factor_authentication/setup/intro');
    await capture('two-factor-intro');
    await capture('two-factor-qr', async () => {
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
    await captureInPlace('recovery-codes');
    await page.getByTestId('codes-continue').click();

    await page.waitForURL('**/account/timezone');
    await expect.poll(() => page.getByRole('combobox').inputValue()).toBe('Europe/Berlin');
    await capture('timezone');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(`${server.url}/`);
    await page.getByTestId('home-greeting').waitFor();
    expect(await page.getByTestId('home-greeting').textContent()).toContain('Ada');
    await capture('home');

    await page.goto(`${server.url}/account/account-details`);
    await settle();
    await capture('account-details');
    await page.goto(`${server.url}/account/notifications`);
    await settle();
    await capture('account-notifications');
    await page.goto(`${server.url}/no/such/page`);
    await settle();
    await capture('not-found');
    await page.goto(`${server.url}/`);
    await settle();
  });

  it('logs out and logs in again with a TOTP code', async () => {
    await logout();
    await login();
    await capture('two-factor-app');
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
    await capture('two-factor-recovery');
    await page.getByLabel('Recovery code').fill(recoveryCodes[0]!);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${server.url}/`);
    await page.getByTestId('home-greeting').waitFor();
  });

  it('resets the password through the mailed link and signs in with the new one', async () => {
    await logout();
    await page.goto(`${server.url}/password_reset`);
    await settle();
    await capture('forgot-password');
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByText('a reset link is on its way', { exact: false }).waitFor();

    const [resetLink] = await smtp.waitFor(
      email,
      /https?:\/\/[^\s"'<>]+\/account\/password\/reset\/confirm\/[^\s"'<>/]+\/[^\s"'<>]+/,
    );
    await page.goto(resetLink);
    await settle();
    await capture('reset-confirm');
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
          await page.waitForTimeout(400);
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
      await settle();
      await v.act?.();
      const list = await seriousViolations(page);
      if (list.length) violations.push({ page: v.name, combo: 'en', list });
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${v.name}.png`) });
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.evaluate((key) => localStorage.removeItem(key), PREFS_KEY);
  });

  it('reports no serious or critical axe-core violations on any captured page', () => {
    const summary = violations.map((v) => ({
      page: v.page,
      combo: v.combo,
      rules: v.list.map(
        (r) => `${r.id} (${r.impact}): ${r.help} @ ${r.nodes.map((n) => n.target.join(' ')).join(', ')}`,
      ),
    }));
    expect(summary).toEqual([]);
  });
});
