import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { startLabDns } from './dns-server.ts';
import { type ExpectedLab, remapExpected } from './expected.ts';
import { createSite } from './http-sites.ts';
import {
  CT_NAMES,
  DEFAULT_DNS_HOST,
  DEFAULT_DNS_PORT,
  DEFAULT_SUBNET,
  FALLBACK_PORTS,
  LAB_HOSTS,
  LAB_ZONES,
} from './lab-definition.ts';
import { OOB_LAB_HOSTS } from './oob-planted.ts';
import { createOobSite, type LabOobOptions, type OobCallbackContext } from './oob-services.ts';
import { PLANTED_IDS, REMOVABLE_PLANTED_IDS } from './planted.ts';
import { createTcpService } from './tcp-services.ts';

export interface StartLabOptions {
  /** First three octets of the lab's addresses; must be inside 127.0.0.0/8. Default 127.0.1. */
  subnet?: string;
  dnsHost?: string;
  /** 0 picks a free port. Default 5300. */
  dnsPort?: number;
  /** Adds the out-of-scope records (169.254.169.254, 10.0.0.1, a redirect to the metadata address). */
  hostileRecords?: boolean;
  /** 'auto' tries the usual low ports and falls back to FALLBACK_PORTS when binding is not allowed. */
  lowPorts?: 'auto' | 'fallback';
  /**
   * Out-of-band checks: starts the services that call back when exploited (see
   * oob-planted.ts) and delegates `zone` from the lab's DNS to the interaction server.
   */
  oob?: LabOobOptions;
  /**
   * Every HTTP(S) response starts this many milliseconds late, as if the site were a network round
   * trip away (the lab answers on loopback in microseconds; real hosts take tens of milliseconds).
   * Default 0. The scale-out bench uses it to show scans that wait on the network.
   */
  httpDelayMs?: number;
}

export interface RunningService {
  address: string;
  port: number;
  usualPort: number;
  kind: string;
  role: string;
}

export interface Lab {
  subnet: string;
  dns: { host: string; port: number };
  /** crt.sh-compatible API base URL (query with `?q=%25.acme.test&output=json`). */
  ctUrl: string;
  domains: string[];
  services: RunningService[];
  /** Maps a usual port to the port actually bound (differs only in fallback mode). */
  portMap: Record<number, number>;
  address(octet: number): string;
  setTxt(name: string, values: string[]): void;
  removeTxt(name: string): void;
  /** Replaces the zone's own TXT records at `name` (null: back to the zone's own). */
  replaceTxt(name: string, values: string[] | null): void;
  /** Drops every DNS query for `name` unanswered (a check that times out); false: answers again. */
  silenceDns(name: string, silent: boolean): void;
  /** Turns a planted issue off (or back on) at run time. Throws for ids that cannot be toggled. */
  setPlanted(id: string, enabled: boolean): void;
  /** Delays every HTTP(S) response from now on (the `httpDelayMs` option at run time; 0: none). */
  setHttpDelay(ms: number): void;
  isPlanted(id: string): boolean;
  /** expected.json with this lab's addresses and ports. */
  expected(): ExpectedLab;
  stop(): Promise<void>;
}

const CERT = new URL('../certs/expired-selfsigned.crt', import.meta.url);
const KEY = new URL('../certs/expired-selfsigned.key', import.meta.url);

function assertLoopbackSubnet(subnet: string): void {
  const parts = subnet.split('.').map(Number);
  if (parts.length !== 3 || parts[0] !== 127 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) {
    throw new Error(`lab subnet must be three octets inside 127.0.0.0/8, got ${subnet}`);
  }
}

async function canBindLowPort(address: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', (err: NodeJS.ErrnoException) => resolve(err.code !== 'EACCES'));
    s.listen(80, address, () => s.close(() => resolve(true)));
  });
}

function listen(server: net.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

export async function startLab(options: StartLabOptions = {}): Promise<Lab> {
  const subnet = options.subnet ?? DEFAULT_SUBNET;
  assertLoopbackSubnet(subnet);
  const dnsHost = options.dnsHost ?? DEFAULT_DNS_HOST;
  if (!dnsHost.startsWith('127.')) throw new Error('the lab DNS server binds only to 127.0.0.0/8');
  const hostile = options.hostileRecords ?? false;
  const address = (octet: number) => `${subnet}.${octet}`;

  const disabled = new Set<string>();
  const isPlanted = (id: string) => !disabled.has(id);
  const useFallback = options.lowPorts === 'fallback' || !(await canBindLowPort(address(1)));
  const portFor = (usual: number) => (useFallback && usual < 1024 ? (FALLBACK_PORTS[usual] ?? usual) : usual);

  const servers: net.Server[] = [];
  const sockets = new Set<net.Socket>();
  let httpDelayMs = options.httpDelayMs ?? 0;
  const services: RunningService[] = [];
  const portMap: Record<number, number> = {};
  const tlsOptions = { cert: readFileSync(CERT), key: readFileSync(KEY) };

  const oob = options.oob;
  if (oob && !oob.nameserver.host.startsWith('127.'))
    throw new Error('the out-of-band nameserver must be on 127.0.0.0/8');
  const dns = await startLabDns({
    host: dnsHost,
    port: options.dnsPort ?? DEFAULT_DNS_PORT,
    subnet,
    zones: LAB_ZONES,
    hostileRecords: hostile,
    ...(oob
      ? {
          forward: { zone: oob.zone, ...oob.nameserver },
          extraA: OOB_LAB_HOSTS.map((h) => ({ name: h.name, address: address(h.octet) })),
        }
      : {}),
  });
  const oobContext: OobCallbackContext | undefined = oob
    ? { oob, dns: { host: dnsHost, port: dns.port } }
    : undefined;
  const hosts = [
    ...LAB_HOSTS,
    ...(oobContext
      ? OOB_LAB_HOSTS.map((h) => ({
          octet: h.octet,
          role: h.role,
          services: [{ port: 80, kind: 'http' as const, site: `oob:${h.site}` }],
        }))
      : []),
  ];

  try {
    for (const host of hosts) {
      if ('hostile' in host && host.hostile && !hostile) continue;
      for (const svc of host.services) {
        let server: net.Server;
        if (svc.kind === 'http' || svc.kind === 'https') {
          const site = svc.site ?? '';
          const direct =
            oobContext && site.startsWith('oob:')
              ? createOobSite(site.slice(4), oobContext)
              : createSite(site, { isPlanted, ctNames: CT_NAMES });
          const handler: http.RequestListener = (req, res) => {
            if (httpDelayMs > 0) setTimeout(() => direct(req, res), httpDelayMs);
            else direct(req, res);
          };
          server =
            svc.kind === 'https' ? https.createServer(tlsOptions, handler) : http.createServer(handler);
          (server as http.Server).keepAliveTimeout = 5_000;
        } else {
          server = createTcpService(svc.kind, { isPlanted });
        }
        server.on('connection', (s: net.Socket) => {
          sockets.add(s);
          s.once('close', () => sockets.delete(s));
        });
        // A port moved once (taken on every address by another program) stays moved.
        let port = portMap[svc.port] ?? portFor(svc.port);
        try {
          await listen(server, port, address(host.octet));
        } catch (err) {
          const alt = FALLBACK_PORTS[svc.port];
          if (
            (err as NodeJS.ErrnoException).code !== 'EADDRINUSE' ||
            portMap[svc.port] !== undefined ||
            !alt ||
            alt === port
          ) {
            throw err;
          }
          port = alt;
          await listen(server, port, address(host.octet));
        }
        servers.push(server);
        portMap[svc.port] = port;
        services.push({
          address: address(host.octet),
          port,
          usualPort: svc.port,
          kind: svc.kind,
          role: host.role,
        });
      }
    }
  } catch (err) {
    for (const s of servers) s.close();
    for (const s of sockets) s.destroy();
    await dns.close();
    throw err;
  }

  const ctPort = portMap[80] ?? portFor(80);
  return {
    subnet,
    dns: { host: dnsHost, port: dns.port },
    ctUrl: `http://${address(250)}${ctPort === 80 ? '' : `:${ctPort}`}/`,
    domains: LAB_ZONES.map((z) => z.name),
    services,
    portMap,
    address,
    setTxt: (name, values) => dns.setTxt(name, values),
    removeTxt: (name) => dns.removeTxt(name),
    replaceTxt: (name, values) => dns.replaceTxt(name, values),
    silenceDns: (name, silent) => dns.silence(name, silent),
    setPlanted(id, enabled) {
      if (!PLANTED_IDS.includes(id)) throw new Error(`unknown planted issue ${id}`);
      if (!REMOVABLE_PLANTED_IDS.includes(id))
        throw new Error(`planted issue ${id} cannot be toggled at run time`);
      if (enabled) disabled.delete(id);
      else disabled.add(id);
    },
    isPlanted,
    setHttpDelay(ms) {
      httpDelayMs = ms;
    },
    expected: () => remapExpected(subnet, portMap),
    async stop() {
      await Promise.all([
        ...servers.map((s) => new Promise<void>((r) => s.close(() => r()))),
        dns.close(),
        Promise.resolve().then(() => {
          for (const s of sockets) s.destroy();
        }),
      ]);
    },
  };
}
