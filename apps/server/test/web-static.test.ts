import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';

let t: TestApp;
let webDist: string;
beforeAll(async () => {
  webDist = await mkdtemp(path.join(os.tmpdir(), 'perimeter-web-dist-'));
  await mkdir(path.join(webDist, 'assets'));
  await writeFile(path.join(webDist, 'index.html'), '<!doctype html><div id="root"></div>');
  await writeFile(path.join(webDist, 'assets', 'index-4f2a9c1b.js'), 'console.log(1);');
  await writeFile(path.join(webDist, 'favicon.svg'), '<svg/>');
  t = await createTestApp({ PERIMETER_WEB_DIST: webDist, RATE_LIMIT_GLOBAL_PER_MINUTE: '5' });
});
afterAll(async () => {
  await t?.close();
  await rm(webDist, { recursive: true, force: true });
});

describe('the built web app', () => {
  it('serves static files outside the API rate limit, hashed assets immutable, index.html revalidated', async () => {
    for (let i = 0; i < 20; i++) {
      const asset = await t.app.inject({ method: 'GET', url: '/assets/index-4f2a9c1b.js' });
      expect(asset.statusCode, asset.body).toBe(200);
      expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      const page = await t.app.inject({ method: 'GET', url: '/scans/past-scans' });
      expect(page.statusCode).toBe(200);
      expect(page.headers['cache-control']).toBe('no-cache');
    }
    const root = await t.app.inject({ method: 'GET', url: '/favicon.svg' });
    expect(root.headers['cache-control']).toBe('no-cache');

    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      statuses.push((await t.app.inject({ method: 'GET', url: '/api/main/ping' })).statusCode);
    }
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    const limited = await t.app.inject({ method: 'GET', url: '/api/main/ping' });
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({
      code: 'rate_limited',
      detail: expect.stringMatching(/Try again in/),
    });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Still served while the API is limited: the page can load and show the message.
    expect((await t.app.inject({ method: 'GET', url: '/assets/index-4f2a9c1b.js' })).statusCode).toBe(200);
  });
});
