import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import { cp, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TEvent } from '@perimeter/contracts';
import { usesOob } from '@perimeter/engine';
import { type Lab, OOB_PLANTED, startLab } from '@perimeter/lab';
import dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../src/db/embedded.ts';
import { createLogger } from '../src/lib/logger.ts';
import { type OobServer, startOobServer } from '../src/modules/oob/oob-server.ts';
import { importTemplateSet } from '../src/modules/templates/templates-service.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import {
  type Api,
  addVerifiedDomain,
  allEvents,
  createScan,
  datasetPath,
  labEnv,
  type PgBoss,
  signUp,
  startWorkers,
  waitForScan,
} from './support/scan-lab.ts';

/**
 * Issue #17 end to end, as an operator runs it: Perimeter's own interaction server (DNS, HTTP and
 * LDAP listeners on 127.0.251.200, the product's recorder writing to PostgreSQL), the lab with its
 * call-back services and the out-of-band zone delegated from the lab's DNS to that server, the
 * community corpus's out-of-band templates installed as a template set, and a product scan through
 * the API and the worker. The templates the lab's out-of-band planted list names fire exactly
 * there — with the call-backs as evidence — and nowhere else; a call-back after the scan ended is
 * listed on the scan for its owner; another tenant sees neither.
 */
const corpus = datasetPath('nuclei-templates-corpus', 'nuclei-templates-a64f60e.tar.gz');
const ZONE = 'oob.perimeter-lab.test';
const OOB_HOST = '127.0.251.200';
const DOMAIN = 'acme.test';

let root = '';
let lab: Lab;
let t: TestApp;
let boss: PgBoss;
let oob: OobServer;
let alice: Api;
let bob: Api;
let scanId = '';
let events: Extract<TEvent, { scan_subclass: 'exploit_scanner' }>[] = [];
const oobTemplateIds = new Set<string>();

/** The corpus's http templates that use out-of-band call-backs, copied flat into one folder. */
async function oobTemplatesDir(archive: string): Promise<string> {
  root = await mkdtemp(path.join(os.tmpdir(), 'oob-e2e-'));
  await promisify(execFile)('tar', ['-xzf', archive, '-C', root, './http']);
  const out = path.join(root, 'oob');
  await mkdir(out);
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.name.endsWith('.yaml')) {
        const text = await readFile(p, 'utf8');
        if (!usesOob(text)) continue;
        const id = /^id:\s*(\S+)/m.exec(text)?.[1];
        if (id) oobTemplateIds.add(id);
        await cp(p, path.join(out, path.relative(root, p).replaceAll(path.sep, '__')));
      }
    }
  };
  await walk(path.join(root, 'http'));
  return out;
}

function dnsQuery(name: string, port: number): Promise<void> {
  const socket = dgram.createSocket('udp4');
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no DNS answer')), 5000);
    socket.on('message', () => {
      clearTimeout(timer);
      socket.close();
      resolve();
    });
    socket.send(dnsPacket.encode({ type: 'query', id: 9, questions: [{ type: 'A', name }] }), port, OOB_HOST);
  });
}

beforeAll(async () => {
  if (!corpus) return;
  const dir = await oobTemplatesDir(corpus);
  const [dnsPort, httpPort, ldapPort] = [
    await findFreePort(OOB_HOST),
    await findFreePort(OOB_HOST),
    await findFreePort(OOB_HOST),
  ];
  lab = await startLab({
    subnet: '127.0.251',
    dnsHost: '127.0.251.3',
    dnsPort: 0,
    oob: { zone: ZONE, nameserver: { host: OOB_HOST, port: dnsPort }, httpPort, ldapPort },
  });
  t = await createTestApp(
    labEnv(lab, {
      PERIMETER_OOB_DOMAIN: ZONE,
      PERIMETER_OOB_IP: OOB_HOST,
      PERIMETER_OOB_HOST: OOB_HOST,
      PERIMETER_OOB_LISTENERS: 'dns,http,ldap',
      PERIMETER_OOB_DNS_PORT: String(dnsPort),
      PERIMETER_OOB_HTTP_PORT: String(httpPort),
      PERIMETER_OOB_LDAP_PORT: String(ldapPort),
      PERIMETER_OOB_WAIT_MS: '3000',
    }),
  );
  oob = await startOobServer({
    db: t.runtime.ctx.db,
    logger: createLogger('silent'),
    env: t.runtime.ctx.config.env,
  });
  const set = await importTemplateSet(t.runtime.ctx, dir, { name: 'oob-corpus' });
  expect(set.set.loaded).toBeGreaterThan(400);
  boss = await startWorkers(t);
  ({ api: alice } = await signUp(t, 'business'));
  ({ api: bob } = await signUp(t, 'business'));
  const targetId = await addVerifiedDomain(alice, lab, DOMAIN);
  const scan = await createScan(alice, targetId);
  const started = await alice.post('/main/start_created_abstract_scan', { id: scan.id });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const begun = Date.now();
  const done = await waitForScan(alice, scan.id, ['done', 'failed', 'canceled'], 480_000);
  expect(done.status, done.message ?? '').toBe('done');
  console.log(
    `out-of-band lab scan through the product: done after ${((Date.now() - begun) / 1000).toFixed(1)} s`,
  );
  scanId = scan.id;
  events = (await allEvents(alice, 'exploit_scanner', scanId)) as typeof events;
}, 600_000);

afterAll(async () => {
  await boss?.stop({ graceful: false, wait: true, timeout: 5000 });
  await oob?.close();
  await t?.close();
  await lab?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

describe.skipIf(!corpus)('out-of-band checks through the product against the lab', () => {
  it('the corpus templates fire exactly on the planted call-back services, with the call-backs as evidence', () => {
    const fired = events.filter((e) => oobTemplateIds.has(e.template_id));
    const got = [...new Set(fired.map((e) => `${e.template_id}@${e.host}`))].sort();
    const expected = OOB_PLANTED.flatMap((p) => p.corpusTemplates.map((id) => `${id}@${p.host}`)).sort();
    expect(got).toEqual(expected);
    for (const e of fired) {
      const interactions = e.evidence?.interactions ?? [];
      expect(interactions.length, e.template_id).toBeGreaterThan(0);
      const planted = OOB_PLANTED.find((p) => p.host === e.host);
      expect(planted?.callbacks).toEqual(expect.arrayContaining([interactions[0]?.protocol]));
    }
  });

  it('a call-back after the scan ended is listed on the scan for its owner, and for no one else', async () => {
    const carried = events.flatMap((e) => e.evidence?.interactions ?? [])[0];
    expect(carried).toBeDefined();
    // The scan's correlation id with a fresh nonce, as a target calling back late would send it.
    const lateId = `${carried?.id.slice(0, 20)}latecallback0`;
    await dnsQuery(
      `${lateId}.${ZONE}`,
      oob.listeners.find((l) => l.protocol === 'dns/udp')?.address.port ?? 0,
    );
    const until = Date.now() + 20_000;
    let late: { count: number; items: { id: string; protocol: string }[] } = { count: 0, items: [] };
    while (Date.now() < until) {
      const res = await alice.get<{ data: typeof late }>(
        `/main/get_abstract_scan_late_interactions?id=${scanId}`,
      );
      expect(res.status).toBe(200);
      late = res.body.data;
      if (late.items.some((i) => i.id === lateId)) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(late.items.find((i) => i.id === lateId)?.protocol).toBe('dns');
    const other = await bob.get(`/main/get_abstract_scan_late_interactions?id=${scanId}`);
    expect(other.status).toBe(404);
    const othersEvents = await allEvents(bob, 'exploit_scanner');
    expect(
      othersEvents.filter((e) => oobTemplateIds.has((e as { template_id: string }).template_id)),
    ).toEqual([]);
  });
});
