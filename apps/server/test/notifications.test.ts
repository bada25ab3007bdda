import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ScopePolicy } from '@perimeter/engine';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/lib/logger.ts';
import { type PgBoss, startQueue } from '../src/lib/queue.ts';
import {
  registerNotificationWorkers,
  sweepFinishedScans,
} from '../src/modules/notifications/notifications-jobs.ts';
import { postWebhook } from '../src/modules/notifications/notifications-send.ts';
import { client, createTestApp, newUserInput, type TestApp } from './support/app.ts';
import { seedScan, seedTarget, seedTemplateFinding } from './support/findings-seed.ts';
import { startSmtpCapture } from './support/smtp.ts';

type Smtp = Awaited<ReturnType<typeof startSmtpCapture>>;
interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let t: TestApp;
let smtp: Smtp;
let sql: pg.Client;
let boss: PgBoss;
let stopWorkers: () => Promise<void>;
let receiver: http.Server;
let receiverUrl: string;
const received: Received[] = [];
const failuresLeft = new Map<string, number>();

beforeAll(async () => {
  smtp = await startSmtpCapture();
  t = await createTestApp({ SMTP_URL: smtp.url, PERIMETER_ALLOW_PRIVATE_TARGETS: 'true' });
  sql = new pg.Client({ connectionString: t.databaseUrl });
  await sql.connect();
  boss = await startQueue(t.databaseUrl, createLogger('silent'));
  const workers = await registerNotificationWorkers(t.runtime.ctx, boss, {
    webhookRetryDelay: 1,
    webhookRetryLimit: 3,
    sweepMs: 3_600_000,
  });
  stopWorkers = workers.stop;
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const left = failuresLeft.get(path) ?? 0;
      if (left > 0) {
        failuresLeft.set(path, left - 1);
        res.writeHead(500).end('try later');
      } else res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await stopWorkers?.();
  await boss?.stop({ graceful: false, timeout: 2000 });
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  await sql?.end();
  await t?.close();
  await smtp?.close();
});

async function signUp(overrides: { language?: string; scanMail?: boolean; critMail?: boolean } = {}) {
  const input = newUserInput();
  await client(t.app).post('/users/auth/registration/', input);
  const login = await client(t.app).post<{ data: { access: string } }>('/users/auth/login/', {
    email: input.email,
    password: input.password1,
  });
  const { rows } = await sql.query<{ id: string }>(
    `update users set language = $2, notify_scan_finished = $3, notify_new_critical_high = $4,
       email_verified = true
     where email = $1 returning id`,
    [input.email, overrides.language ?? 'en', overrides.scanMail ?? true, overrides.critMail ?? true],
  );
  // Registration queues the address confirmation; it is sent by the dispatcher a moment later.
  // Wait for it, so that what a test counts afterwards is only what the scans sent.
  await waitFor(() =>
    smtp.messages.find((m) => m.to.includes(input.email) && /Confirm your e-mail/.test(m.subject)),
  );
  return { token: login.body.data.access, userId: rows[0]!.id, email: input.email };
}

async function finishedScanWithCritical(userId: string, host: string) {
  const db = t.runtime.ctx.db;
  const target = await seedTarget(db, userId, host);
  const scan = await seedScan(db, userId, target.id, new Date());
  await seedTemplateFinding(
    db,
    { userId, targetId: target.id, scanId: scan.id },
    { key: `k-${host}`, name: 'Exposed .git directory', severity: 'critical', host: `app.${host}` },
  );
  return scan;
}

async function call<T = Record<string, unknown>>(
  token: string,
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  body?: unknown,
) {
  const res = await t.app.inject({
    method,
    url: `/api${url}`,
    headers: { authorization: `Bearer ${token}` },
    ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
  });
  return { status: res.statusCode, body: res.json() as T };
}

function verify(secret: string, r: Received): boolean {
  const ts = String(r.headers['x-perimeter-timestamp']);
  const sig = /v1=([0-9a-f]{64})/.exec(String(r.headers['x-perimeter-signature']))?.[1] ?? '';
  const expected = createHmac('sha256', secret).update(`${ts}.${r.body}`).digest('hex');
  return sig.length === 64 && timingSafeEqual(Buffer.from(sig), Buffer.from(expected));
}

async function waitFor<T>(fn: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('e-mail notifications', () => {
  it('mails "scan finished" and "new critical/high" over SMTP, once, in the user language', async () => {
    const en = await signUp();
    const ru = await signUp({ language: 'ru' });
    const scanEn = await finishedScanWithCritical(en.userId, 'mail-en.example');
    const scanRu = await finishedScanWithCritical(ru.userId, 'mail-ru.example');
    const since = smtp.messages.length;
    expect(await sweepFinishedScans(t.runtime.ctx)).toBeGreaterThanOrEqual(2);
    expect(await sweepFinishedScans(t.runtime.ctx)).toBe(0); // claimed already

    const finished = await waitFor(() =>
      smtp.messages.slice(since).find((m) => m.to.includes(en.email) && /finished/.test(m.subject)),
    );
    expect(finished.subject).toBe('Scan of mail-en.example finished');
    expect(finished.text).toContain('Findings: 1 critical.');
    expect(finished.text).toContain(`/scans/past-scans/${scanEn.id}`);
    const crit = await waitFor(() =>
      smtp.messages.slice(since).find((m) => m.to.includes(en.email) && /New critical/.test(m.subject)),
    );
    expect(crit.text).toContain('[critical] Exposed .git directory — app.mail-en.example');
    // The tab of those findings, this scan, filtered to them.
    expect(crit.text).toContain(`/events/vulnerabilities/${scanEn.id}?severity=critical,high`);

    const ruFinished = await waitFor(() =>
      smtp.messages.slice(since).find((m) => m.to.includes(ru.email) && /завершено/.test(m.subject)),
    );
    expect(ruFinished.subject).toBe('Сканирование mail-ru.example завершено');
    const ruCrit = await waitFor(() =>
      smtp.messages.slice(since).find((m) => m.to.includes(ru.email) && /Новые критические/.test(m.subject)),
    );
    expect(ruCrit.text).toContain('[критическая] Exposed .git directory');
    await new Promise((r) => setTimeout(r, 1500));
    expect(smtp.messages.slice(since).filter((m) => m.to.includes(en.email))).toHaveLength(2);
    void scanRu;
  });

  it('respects the preferences: nothing is mailed when both are off', async () => {
    const quiet = await signUp({ scanMail: false, critMail: false });
    const onlyCrit = await signUp({ scanMail: false, critMail: true });
    await finishedScanWithCritical(quiet.userId, 'quiet.example');
    await finishedScanWithCritical(onlyCrit.userId, 'onlycrit.example');
    const since = smtp.messages.length;
    await sweepFinishedScans(t.runtime.ctx);
    await waitFor(() => smtp.messages.slice(since).find((m) => m.to.includes(onlyCrit.email)));
    await new Promise((r) => setTimeout(r, 1500));
    expect(smtp.messages.slice(since).filter((m) => m.to.includes(quiet.email))).toHaveLength(0);
    expect(
      smtp.messages
        .slice(since)
        .filter((m) => m.to.includes(onlyCrit.email))
        .map((m) => m.subject),
    ).toEqual(['New critical and high findings on onlycrit.example (1)']);
  });
});

describe('canceled scans and the one-time plan', () => {
  it('a canceled scan: no "scan finished" mail, but its new critical findings are mailed — after the worker settled', async () => {
    const u = await signUp();
    const scan = await finishedScanWithCritical(u.userId, 'canceled.example');
    await sql.query(`update scans set status = 'canceled', finished_at = now() where id = $1`, [scan.id]);
    const since = smtp.messages.length;
    // Just canceled: the worker may still be writing what it found; not taken yet.
    await sweepFinishedScans(t.runtime.ctx);
    const early = await sql.query('select kind from notification_log where scan_id = $1', [scan.id]);
    expect(early.rows).toEqual([]);
    await sql.query(`update scans set finished_at = now() - interval '1 minute' where id = $1`, [scan.id]);
    expect(await sweepFinishedScans(t.runtime.ctx)).toBeGreaterThanOrEqual(1);
    const crit = await waitFor(() =>
      smtp.messages.slice(since).find((m) => m.to.includes(u.email) && /New critical/.test(m.subject)),
    );
    expect(crit.text).toContain('Exposed .git directory');
    await waitFor(async () => {
      const { rows } = await sql.query('select kind from notification_log where scan_id = $1', [scan.id]);
      return rows.some((r) => r.kind === 'webhook_scan_finished') || undefined;
    });
    await new Promise((r) => setTimeout(r, 1000));
    expect(
      smtp.messages
        .slice(since)
        .filter((m) => m.to.includes(u.email))
        .map((m) => m.subject),
    ).toEqual(['New critical and high findings on canceled.example (1)']);
  });

  it('try_it ("no follow-up notifications"): the scan-finished mail only, no critical/high alert', async () => {
    const u = await signUp();
    await sql.query(`update users set plan = 'try_it' where id = $1`, [u.userId]);
    await finishedScanWithCritical(u.userId, 'once.example');
    const since = smtp.messages.length;
    await sweepFinishedScans(t.runtime.ctx);
    await waitFor(() =>
      smtp.messages.slice(since).find((m) => m.to.includes(u.email) && /finished/.test(m.subject)),
    );
    await new Promise((r) => setTimeout(r, 1500));
    expect(
      smtp.messages
        .slice(since)
        .filter((m) => m.to.includes(u.email))
        .map((m) => m.subject),
    ).toEqual(['Scan of once.example finished']);
  });
});

describe('webhooks', () => {
  it('signs every delivery (HMAC-SHA256 over timestamp.body) and retries a failing endpoint with backoff', async () => {
    const u = await signUp({ scanMail: false, critMail: false });
    const created = await call<{ data: { webhook_id: string; secret: string; events: string[] } }>(
      u.token,
      'POST',
      '/users/webhooks/create',
      { url: `${receiverUrl}/hook-${u.userId}` },
    );
    expect(created.status).toBe(201);
    const { secret, webhook_id } = created.body.data;
    expect(secret).toMatch(/^whsec_/);
    expect(created.body.data.events).toEqual(['scan.finished', 'findings.new_critical_high']);
    failuresLeft.set(`/hook-${u.userId}`, 2);

    const scan = await finishedScanWithCritical(u.userId, 'hook.example');
    await sweepFinishedScans(t.runtime.ctx);
    const mine = () => received.filter((r) => r.path === `/hook-${u.userId}`);
    await waitFor(async () => {
      const { rows } = await sql.query(
        `select count(*)::int as n from webhook_deliveries where webhook_id = $1 and status = 'delivered'`,
        [webhook_id],
      );
      return rows[0].n === 2 ? true : undefined;
    }, 30_000);
    const events = mine().map((r) => JSON.parse(r.body) as { event: string; scan_id: string });
    expect(new Set(events.map((e) => e.event))).toEqual(
      new Set(['scan.finished', 'findings.new_critical_high']),
    );
    expect(events.every((e) => e.scan_id === scan.id)).toBe(true);
    expect(mine().length).toBe(4); // two deliveries, two failed attempts before them
    for (const r of mine()) expect(verify(secret, r)).toBe(true);
    expect(verify('whsec_wrong', mine()[0]!)).toBe(false);
    const { rows } = await sql.query(
      'select sum(attempts)::int as n from webhook_deliveries where webhook_id = $1',
      [webhook_id],
    );
    expect(rows[0].n).toBe(4);

    const list = await call<{ data: { results: Array<Record<string, unknown>> } }>(
      u.token,
      'GET',
      '/users/webhooks/list',
    );
    expect(list.body.data.results).toHaveLength(1);
    expect(list.body.data.results[0]).not.toHaveProperty('secret');
    expect(list.body.data.results[0]!.last_delivery).toMatchObject({ status: 'delivered' });

    const test = await call<{ data: { delivered: boolean; status_code: number } }>(
      u.token,
      'POST',
      '/users/webhooks/test',
      {
        webhook_id,
      },
    );
    expect(test.body.data).toMatchObject({ delivered: true, status_code: 204 });
    const testEvent = mine().at(-1)!;
    expect(JSON.parse(testEvent.body).event).toBe('webhook.test');
    expect(testEvent.headers['x-perimeter-event']).toBe('webhook.test');
    expect(verify(secret, testEvent)).toBe(true);

    expect((await call(u.token, 'DELETE', `/users/webhooks/delete?webhook_id=${webhook_id}`)).status).toBe(
      200,
    );
    expect((await call(u.token, 'DELETE', `/users/webhooks/delete?webhook_id=${webhook_id}`)).status).toBe(
      404,
    );
  }, 60_000);

  it('refuses private addresses unless the operator allows them', async () => {
    const refused = await postWebhook(`${receiverUrl}/x`, 's', '{}', {}, { policy: new ScopePolicy() });
    expect(refused).toMatchObject({ ok: false, statusCode: null });
    expect(refused.error).toMatch(/refusing to call 127\.0\.0\.1: loopback/);
    const byName = await postWebhook(
      receiverUrl.replace('127.0.0.1', 'localhost'),
      's',
      '{}',
      {},
      { policy: new ScopePolicy() },
    );
    expect(byName.error).toMatch(/refusing to call .*\(localhost\)/);
  });

  it('isolation: another user’s webhook answers 404; malformed input never 5xx', async () => {
    const a = await signUp();
    const b = await signUp();
    const created = await call<{ data: { webhook_id: string } }>(a.token, 'POST', '/users/webhooks/create', {
      url: `${receiverUrl}/iso`,
      events: ['scan.finished'],
    });
    const id = created.body.data.webhook_id;
    expect((await call(b.token, 'POST', '/users/webhooks/test', { webhook_id: id })).status).toBe(404);
    expect((await call(b.token, 'DELETE', `/users/webhooks/delete?webhook_id=${id}`)).status).toBe(404);
    expect(
      (await call<{ data: { count: number } }>(b.token, 'GET', '/users/webhooks/list')).body.data.count,
    ).toBe(0);
    expect(
      (await call<{ data: { count: number } }>(a.token, 'GET', '/users/webhooks/list')).body.data.count,
    ).toBe(1);

    const value = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.constant(null),
      fc.constantFrom(
        'ftp://x',
        'http://',
        'javascript:alert(1)',
        id,
        ['scan.finished'],
        ['nope'],
        'http://127.0.0.1:1/',
      ),
      fc.array(fc.string()),
    );
    const body = fc.oneof(fc.dictionary(fc.constantFrom('url', 'events', 'webhook_id', 'x'), value), value);
    await fc.assert(
      fc.asyncProperty(body, async (bd) => {
        for (const u of ['/users/webhooks/create', '/users/webhooks/test']) {
          const res = await t.app.inject({
            method: 'POST',
            url: `/api${u}`,
            headers: { authorization: `Bearer ${b.token}`, 'content-type': 'application/json' },
            payload: JSON.stringify(bd) ?? 'null',
          });
          expect(res.statusCode, `${u} ${JSON.stringify(bd)} → ${res.body}`).toBeLessThan(500);
        }
      }),
      { numRuns: 200 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom('webhook_id', 'x'), fc.oneof(fc.string(), fc.constant(id))),
        async (q) => {
          const res = await call(b.token, 'DELETE', `/users/webhooks/delete?${new URLSearchParams(q)}`);
          expect(res.status).toBeLessThan(500);
          const list = await call(b.token, 'GET', `/users/webhooks/list?${new URLSearchParams(q)}`);
          expect(list.status).toBeLessThan(500);
        },
      ),
      { numRuns: 200 },
    );
  }, 60_000);
});
