import dgram from 'node:dgram';
import { Resolver } from 'node:dns/promises';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net from 'node:net';

/**
 * Lab services that call back when exploited, for the out-of-band checks: the scanner's
 * payload names a host under the out-of-band zone, and the service resolves it (through the
 * lab's DNS, which delegates the zone to Perimeter's interaction server) and connects to it.
 * They call back only into that zone, and only to loopback addresses: any other name is
 * ignored, never resolved. Each answers after its call-back, so a test needs no sleeps.
 */
export interface LabOobOptions {
  /** The zone the interaction server answers for, e.g. `oob.perimeter.test`. */
  zone: string;
  /** The interaction server's DNS (loopback): the lab's DNS forwards the zone's queries there. */
  nameserver: { host: string; port: number };
  /** Port the link-preview service fetches `http://` URLs on (default 80). */
  httpPort?: number;
  /** Port the Log4Shell service opens its LDAP connection on (default 389). */
  ldapPort?: number;
}

export interface OobCallbackContext {
  oob: LabOobOptions;
  /** The lab's own DNS server (queries for the zone are forwarded by it). */
  dns: { host: string; port: number };
}

const TIMEOUT_MS = 2000;

export function isUnderZone(name: string, zone: string): boolean {
  const n = name.toLowerCase().replace(/\.$/, '');
  const z = zone.toLowerCase().replace(/\.$/, '');
  return n.endsWith(`.${z}`) && /^[a-z0-9.-]+$/.test(n);
}

/** Resolves a name under the zone through the lab DNS; undefined for anything else. */
async function resolveInZone(ctx: OobCallbackContext, name: string): Promise<string | undefined> {
  if (!isUnderZone(name, ctx.oob.zone)) return undefined;
  const resolver = new Resolver({ timeout: TIMEOUT_MS, tries: 1 });
  resolver.setServers([`${ctx.dns.host}:${ctx.dns.port}`]);
  try {
    const addresses = await resolver.resolve4(name);
    // Loopback only: a lab service never connects anywhere else.
    return addresses.find((a) => a.startsWith('127.'));
  } catch {
    return undefined;
  }
}

function reply(
  res: ServerResponse,
  status: number,
  title: string,
  headers: Record<string, string> = {},
): void {
  const body = `<!DOCTYPE html><html><head><title>${title}</title></head><body><h1>${title}</h1></body></html>`;
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

function pathOf(req: IncomingMessage): { path: string; query: URLSearchParams } {
  const u = new URL(req.url ?? '/', 'http://lab.invalid');
  return { path: u.pathname, query: u.searchParams };
}

/** The host a header value names: `spoofed.x.zone`, `http://x.zone/ref`, `root@x.zone`. */
export function hostInHeader(value: string): string | undefined {
  const v = value.trim().split(',')[0]?.trim() ?? '';
  const m =
    /^[a-z][a-z0-9+.-]*:\/\/([^/:?#]+)/i.exec(v) ?? /@([^\s/:?#;]+)/.exec(v) ?? /^([^\s/:?#;]+)$/.exec(v);
  return m?.[1]?.toLowerCase();
}

/**
 * (a) Visitor analytics that resolves the client's forwarded address and the referring host
 * (a reverse-lookup logger): `X-Forwarded-For` and `Referer` on requests to `/`.
 */
export function headerLookupSite(ctx: OobCallbackContext) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { path } = pathOf(req);
    if (path !== '/') return reply(res, 404, 'Not Found');
    const names = new Set<string>();
    for (const header of ['x-forwarded-for', 'referer']) {
      const v = req.headers[header];
      const host = typeof v === 'string' ? hostInHeader(v) : undefined;
      if (host) names.add(host);
    }
    await Promise.all([...names].map((n) => resolveInZone(ctx, n)));
    reply(res, 200, 'Acme Analytics', { Server: 'Apache/2.4.41 (Ubuntu)' });
  };
}

async function fetchInZone(ctx: OobCallbackContext, target: string): Promise<void> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return;
  }
  if (url.protocol !== 'http:') return;
  const address = await resolveInZone(ctx, url.hostname);
  if (!address) return;
  await new Promise<void>((resolve) => {
    const req = http.request(
      {
        host: address,
        port: ctx.oob.httpPort ?? 80,
        method: 'GET',
        path: `${url.pathname}${url.search}`,
        headers: { Host: url.host, 'User-Agent': 'AcmePreview/1.0' },
        timeout: TIMEOUT_MS,
      },
      (res) => {
        res.resume();
        res.on('end', resolve);
        res.on('error', () => resolve());
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve());
    req.end();
  });
}

/** (b) A link preview that fetches the `url` parameter of `/` server-side (blind SSRF). */
export function ssrfFetchSite(ctx: OobCallbackContext) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { path, query } = pathOf(req);
    if (path !== '/') return reply(res, 404, 'Not Found');
    const target = query.get('url');
    if (target) await fetchInZone(ctx, target);
    reply(res, 200, 'Link preview', { Server: 'nginx/1.18.0' });
  };
}

const JNDI = /\$\{jndi:ldap:\/\/([^/}]+)(\/[^}]*)?\}/i;

/**
 * Log4j 2.14's lookups as they apply to a logged string: `${:-x}` → x, `${lower:x}`,
 * `${upper:x}`, `${hostName}`, innermost first, then a `${jndi:ldap://host/dn}` is the
 * address and DN to look up.
 */
export function expandLog4j(text: string, hostName: string): { host: string; dn: string } | undefined {
  let s = text;
  for (let i = 0; i < 20; i++) {
    const next = s
      .replace(/\$\{:-([^${}]*)\}/g, '$1')
      .replace(/\$\{lower:([^${}]*)\}/gi, (_m, x: string) => x.toLowerCase())
      .replace(/\$\{upper:([^${}]*)\}/gi, (_m, x: string) => x.toUpperCase())
      .replace(/\$\{hostName\}/g, hostName);
    if (next === s) break;
    s = next;
  }
  const m = JNDI.exec(s);
  if (!m) return undefined;
  return { host: (m[1] as string).replace(/:\d+$/, '').toLowerCase(), dn: (m[2] ?? '/').slice(1) };
}

function ber(tag: number, content: Buffer): Buffer {
  const n = content.length;
  const len =
    n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), len, content]);
}
const int = (n: number) => ber(0x02, Buffer.from([n]));
const octets = (s: string) => ber(0x04, Buffer.from(s, 'utf8'));

/** What a JNDI lookup sends first: an anonymous LDAPv3 bind and a base search for the DN. */
export function ldapLookupMessages(dn: string): Buffer {
  const bind = ber(
    0x30,
    Buffer.concat([int(1), ber(0x60, Buffer.concat([int(3), octets(''), ber(0x80, Buffer.alloc(0))]))]),
  );
  const search = ber(
    0x30,
    Buffer.concat([
      int(2),
      ber(
        0x63,
        Buffer.concat([
          octets(dn),
          ber(0x0a, Buffer.from([0])), // baseObject
          ber(0x0a, Buffer.from([3])), // derefAlways
          int(0),
          int(0),
          ber(0x01, Buffer.from([0])),
          ber(0x87, Buffer.from('objectClass')),
          ber(0x30, Buffer.alloc(0)),
        ]),
      ),
    ]),
  );
  return Buffer.concat([bind, search]);
}

async function ldapLookup(ctx: OobCallbackContext, host: string, dn: string): Promise<void> {
  const address = await resolveInZone(ctx, host);
  if (!address) return;
  await new Promise<void>((resolve) => {
    const socket = net.connect({ host: address, port: ctx.oob.ldapPort ?? 389 });
    const done = () => {
      socket.destroy();
      resolve();
    };
    socket.setTimeout(TIMEOUT_MS, done);
    socket.on('error', done);
    socket.on('close', done);
    socket.on('connect', () => socket.write(ldapLookupMessages(dn)));
    // The first answer is enough: what the lookup would load is never used.
    socket.on('data', done);
  });
}

/**
 * (c) A Java app that logs the request's query values and headers with Log4j 2.14
 * (CVE-2021-44228): a `${jndi:ldap://…}` in them makes it resolve the host and connect.
 */
export function log4jSite(ctx: OobCallbackContext, hostName: string) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { path, query } = pathOf(req);
    if (path !== '/') return reply(res, 404, 'Not Found');
    const logged = [
      ...query.values(),
      ...Object.values(req.headers).flatMap((v) => (Array.isArray(v) ? v : v ? [v] : [])),
    ];
    const lookups = new Map<string, string>();
    for (const text of logged) {
      if (!text.includes('${')) continue;
      const found = expandLog4j(text, hostName);
      if (found) lookups.set(`${found.host}/${found.dn}`, found.host);
    }
    await Promise.all([...lookups].map(([key, host]) => ldapLookup(ctx, host, key.slice(host.length + 1))));
    reply(res, 200, 'Acme Logs', { Server: 'Apache-Coyote/1.1' });
  };
}

/** A UDP DNS query forwarded as is to the zone's nameserver; its answer, or undefined. */
export async function forwardDns(
  message: Buffer,
  nameserver: { host: string; port: number },
): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const socket = dgram.createSocket('udp4');
    const finish = (answer?: Buffer) => {
      clearTimeout(timer);
      socket.close();
      resolve(answer);
    };
    const timer = setTimeout(() => finish(), TIMEOUT_MS);
    socket.on('message', (msg) => finish(msg));
    socket.on('error', () => finish());
    socket.send(message, nameserver.port, nameserver.host);
  });
}

/** The call-back site by name (see OOB_LAB_HOSTS). */
export function createOobSite(
  site: string,
  ctx: OobCallbackContext,
): (req: IncomingMessage, res: ServerResponse) => void {
  const handler =
    site === 'header-lookup'
      ? headerLookupSite(ctx)
      : site === 'ssrf-fetch'
        ? ssrfFetchSite(ctx)
        : site === 'log4j'
          ? log4jSite(ctx, 'logs')
          : undefined;
  if (!handler) throw new Error(`unknown out-of-band lab site ${site}`);
  return (req, res) => {
    handler(req, res).catch(() => {
      if (!res.headersSent) reply(res, 500, 'Error');
    });
  };
}
