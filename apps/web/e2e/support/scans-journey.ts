import type { TEvent } from '@perimeter/contracts';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS } from './browser.ts';
import { createCapture, recordFailure, settle } from './capture.ts';
import { type Lab, labServerEnv, loadLabIntel, startE2eLab } from './lab.ts';
import { startServer, type TServer } from './server.ts';
import { startSmtp } from './smtp.ts';
import { prepareUser, type TPreparedUser } from './user.ts';

export type TPage<T> = { items: T[]; total: number };

/** What the scans journey's tests share: the lab, the server, one signed-in page, the scan so far. */
export type TScansJourney = {
  domain: string;
  lab: Lab;
  server: TServer;
  page: Page;
  user: TPreparedUser;
  shots: ReturnType<typeof createCapture>;
  targetId: string;
  scanId: string;
  /** Opens a route of the app and waits for it to settle. */
  go(route: string): Promise<void>;
  /** A page of the scan's findings of one subclass, as the API answers it. */
  events(
    sub: TEvent['scan_subclass'],
    body?: Record<string, unknown>,
    limit?: number,
  ): Promise<TPage<TEvent>>;
};

/**
 * Starts the lab (on `subnet`), an SMTP server and the real server with the lab's intel, prepares
 * a business-plan user on `domain` and signs them in in Chromium, before the tests of the calling
 * describe block; records a failing test's page; stops everything after them.
 */
export function useScansJourney(domain: string, subnet: string): TScansJourney {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let browser: Browser;
  let context: BrowserContext;
  const j = { domain, targetId: '', scanId: '' } as TScansJourney;
  j.go = async (route) => {
    await j.page.goto(`${j.server.url}${route}`);
    await settle(j.page);
  };
  j.events = async (sub, body = {}, limit = 10) => {
    const res = await j.user.call<TPage<TEvent>>(
      'POST',
      `/main/get_one_user_abstract_scan_events?limit=${limit}&offset=0`,
      { scan_subclass: sub, id: j.scanId, ...body },
    );
    expect(res.status, JSON.stringify(res.raw)).toBe(200);
    return res.data;
  };

  beforeAll(async () => {
    smtp = await startSmtp();
    j.lab = await startE2eLab(subnet);
    j.server = await startServer(smtp.port, labServerEnv(j.lab));
    loadLabIntel(j.server, j.lab);
    j.user = await prepareUser(j.server, smtp, `scans-${Date.now()}@example.com`);
    j.server.cli(['plans', 'assign', j.user.email, 'business']);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    context = await browser.newContext({
      viewport: { width: 1440, height: 900 },
      locale: 'en-GB',
      timezoneId: 'Europe/Berlin',
      acceptDownloads: true,
    });
    j.page = await context.newPage();
    j.shots = createCapture(j.page);
    await j.user.signIn(j.page);
    await context.addCookies([{ name: 'cookieConsent', value: 'true', url: j.server.url }]);
  });

  afterEach((ctx) => recordFailure(ctx.task, j.page, 'scans', () => j.server.logs()));

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await j.server?.stop();
    await j.lab?.stop();
    await smtp?.close();
  });

  return j;
}
