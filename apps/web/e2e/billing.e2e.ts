import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS, missingBrowserReason } from './support/browser.ts';
import { ensureBuilt, startServer, type TServer } from './support/server.ts';
import { startSmtp } from './support/smtp.ts';
import { prepareUser, type TApiCall } from './support/user.ts';

/**
 * Plans journey with the local provider: a trial user chooses Starter yearly, pays with a test card,
 * sees the Congratulations modal, "Got it" clears the marker, the Starter limit refuses a second
 * domain; moving to Business accepts it. Onboarding is done through the API (the main journey covers its UI).
 */
const skipReason = missingBrowserReason();
if (skipReason) console.warn(`billing e2e skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)('plans and billing journey (local provider)', () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let server: TServer;
  let browser: Browser;
  let page: Page;
  let call: TApiCall;
  const email = `billing-${Date.now()}@example.com`;
  const password = 'correct-horse-battery-9';

  beforeAll(async () => {
    ensureBuilt();
    smtp = await startSmtp();
    server = await startServer(smtp.port);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await (
      await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'en-GB' })
    ).newPage();

    // Onboarding through the API (the main journey covers its UI).
    const user = await prepareUser(server, smtp, email, password);
    call = user.call;
    await user.signIn(page);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await smtp?.close();
  });

  async function payWithTestCard() {
    await page.waitForURL('**/checkout/**');
    await page.getByLabel('Card number').fill('4242424242424242');
    await page.getByLabel('Name on card').fill('Ada Lovelace');
    await page.getByLabel('Expiry date (MM/YY)').fill('1239');
    await page.getByLabel('Last three digits').fill('123');
    await page.getByLabel('Remember this card').check();
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.waitForURL('**/post-payment?session_id=*');
  }

  async function congratulate(planName: string) {
    const dialog = page.getByRole('dialog', { name: 'Congratulations' });
    await dialog.waitFor({ timeout: 30_000 });
    await expect(dialog.textContent()).resolves.toContain(`Your plan is now ${planName}.`);
    await expect(dialog.textContent()).resolves.toContain('Host and Subdomain Limitations:');
    await dialog.getByRole('button', { name: 'Got it' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.evaluate(() => localStorage.getItem('tariff'))).toBeNull();
  }

  it('trial → Starter yearly with a test card → post-payment → Congratulations → Got it; Starter refuses a second domain', async () => {
    await page.goto(`${server.url}/choose-plan`);
    await page.getByRole('heading', { name: 'Choose a plan' }).waitFor();
    await page.getByRole('button', { name: 'Accept All Cookies' }).click();
    await page.getByRole('button', { name: 'Yearly' }).click();
    await expect(page.getByTestId('price-starter').textContent()).resolves.toContain('350');
    await page.getByRole('button', { name: 'Choose Starter' }).click();
    await payWithTestCard();
    expect(await page.evaluate(() => localStorage.getItem('tariff'))).toBe('starter');
    await page.getByText('Payment received. Your plan is now Starter.').waitFor({ timeout: 30_000 });
    await congratulate('Starter');
    const me = await call<{ tariffs: { key: string }[] }>('GET', '/users/user');
    expect(me.data.tariffs[0]?.key).toBe('starter');
    expect(
      (await call('POST', '/main/user_target/add_targets', { targets: ['one.example.org'] })).status,
    ).toBe(201);
    const second = await call('POST', '/main/user_target/add_targets', { targets: ['two.example.org'] });
    expect(second.status).toBe(403);
  });

  it('moving to Business from /account/plan accepts the second domain; the payment page lists the card and invoices', async () => {
    await page.goto(`${server.url}/account/plan`);
    await page.getByText('Current plan: Starter').waitFor();
    await page.getByRole('link', { name: 'Change plan' }).click();
    await page.waitForURL('**/account/plan/choose-plan');
    await page.getByRole('button', { name: 'Choose Business' }).click();
    await payWithTestCard();
    await congratulate('Business');
    expect(
      (await call('POST', '/main/user_target/add_targets', { targets: ['two.example.org'] })).status,
    ).toBe(201);
    await page.goto(`${server.url}/account/payment`);
    await page.getByText('VISA ending in 4242').waitFor();
    expect(await page.getByRole('table', { name: 'Invoices' }).getByRole('row').count()).toBe(3);
  });
});
