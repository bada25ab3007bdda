import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { type Api, signUp } from './support/scan-lab.ts';

/**
 * The review created webhooks on addresses the scan scope refuses (`[::7f00:1]`,
 * `[64:ff9b::7f00:1]`, `[2002:7f00:1::1]`, `[fec0::1]`, the server's own `192.0.2.2`). Through the
 * API, every such form is now a 400 at creation and nothing is stored; delivery is refused too
 * (src/lib/guarded-request.test.ts, with no connection attempted).
 */
let t: TestApp;
let api: Api;
beforeAll(async () => {
  t = await createTestApp({ PERIMETER_ALLOW_PRIVATE_TARGETS: 'false' });
  ({ api } = await signUp(t));
});
afterAll(async () => t?.close());

const FORMS = [
  'http://[::7f00:1]/hook',
  'http://[64:ff9b::7f00:1]/hook',
  'http://[2002:7f00:1::1]/hook',
  'http://[fec0::1]/hook',
  'http://192.0.2.2/hook',
  'http://127.0.0.1:8080/hook',
  'http://2130706433/hook',
  'http://0x7f.1/hook',
  'http://0177.0.0.1/hook',
  'http://127.1/hook',
  'http://0/hook',
  'http://[::1]/hook',
  'http://[::ffff:127.0.0.1]/hook',
  'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook',
  'http://[fe80::1]/hook',
  'http://[fd00::1]/hook',
  'http://10.0.0.1/hook',
  'http://172.16.0.1/hook',
  'http://192.168.0.1/hook',
  'http://100.64.0.1/hook',
  'https://169.254.169.254/latest/meta-data/',
  'http://198.18.0.1/hook',
  'http://224.0.0.1/hook',
  'http://user:pass@hooks.example.com/hook',
];

describe('webhook addresses at creation', () => {
  it.each(FORMS)('%s is refused with 400', async (url) => {
    const res = await api.post<{ detail: string }>('/users/webhooks/create', { url });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.detail).toMatch(/refus|http or https|valid/i);
  });

  it('stored none of them; a public name is accepted (checked again at each delivery)', async () => {
    const list = await api.get<{ data: { count: number } }>('/users/webhooks/list');
    expect(list.body.data.count).toBe(0);
    expect((await api.post('/users/webhooks/create', { url: 'https://hooks.example.com/x' })).status).toBe(
      201,
    );
  });
});
