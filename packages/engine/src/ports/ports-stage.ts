import { Channel, mapConcurrent } from '../lib/async.ts';
import type { ScanEvent, ServiceAsset, TechnologyAsset } from '../pipeline/events.ts';
import { log, ProgressTracker } from '../pipeline/progress.ts';
import type { Stage, StageContext } from '../pipeline/stage.ts';
import { scanTcpPorts } from './connect-scanner.ts';
import { isNmapAvailable, runNmap } from './nmap-adapter.ts';
import { parsePorts } from './port-lists.ts';
import { identifyService, type ServiceInfo } from './service-probes.ts';

const STAGE = 'ports';
const HTTP_SERVICES = new Set(['http', 'https']);

function toAsset(info: ServiceInfo): ServiceAsset {
  const a: ServiceAsset = {
    kind: 'service',
    ip: info.ip,
    port: info.port,
    transport: 'tcp',
    service: info.service,
    tls: info.tls,
    source: info.source,
  };
  if (info.product) a.product = info.product;
  if (info.version) a.version = info.version;
  if (info.cpe) a.cpe = info.cpe;
  if (info.banner) a.banner = info.banner;
  return a;
}

/** Non-HTTP services carry their own technology (HTTP ones get theirs from fingerprints). */
function bannerTechnology(info: ServiceInfo): TechnologyAsset | null {
  if (!info.tech || HTTP_SERVICES.has(info.service)) return null;
  const t: TechnologyAsset = {
    kind: 'technology',
    name: info.tech,
    confidence: 100,
    categories: [],
    target: `${info.ip}:${info.port}`,
    host: info.ip,
    port: info.port,
    source: 'banner',
  };
  if (info.version) t.version = info.version;
  if (info.cpe) t.cpe = info.cpe;
  if (info.version && info.banner) t.banner = info.banner.split(/\r?\n/)[0]?.trim().slice(0, 200) ?? '';
  return t;
}

async function scanHost(
  ctx: StageContext,
  ip: string,
  ports: number[],
  useNmap: string | null,
  onSettled: (done: number) => void,
): Promise<ServiceInfo[]> {
  const p = ctx.config.ports ?? {};
  if (useNmap) return runNmap(ctx.policy, ip, ports, { path: useNmap, signal: ctx.signal });
  const open: number[] = [];
  for await (const port of scanTcpPorts(ctx.policy, ip, ports, {
    concurrency: p.concurrency ?? 500,
    timeoutMs: p.connectTimeoutMs ?? 1500,
    ratePerSecond: p.ratePerHost ?? 0,
    signal: ctx.signal,
    onSettled,
  })) {
    open.push(port);
  }
  const out: ServiceInfo[] = [];
  for await (const info of mapConcurrent(
    open.sort((a, b) => a - b),
    16,
    (port) =>
      identifyService(ctx.policy, ip, port, {
        connectTimeoutMs: p.connectTimeoutMs ?? 2000,
        readTimeoutMs: p.bannerTimeoutMs ?? 1500,
        signal: ctx.signal,
      }),
    ctx.signal,
  )) {
    // null: no probe could connect again (a port that was never open, e.g. a self-connect).
    if (info) out.push(info);
  }
  return out.sort((a, b) => a.port - b.port);
}

/**
 * Port-scans every admitted address not scanned yet and identifies what answers. Hosts with
 * no open port are recorded as skipped (unresponsive) for the summary.
 */
export async function* scanPendingHosts(ctx: StageContext, stage: string): AsyncGenerator<ScanEvent> {
  const p = ctx.config.ports ?? {};
  const ports = parsePorts(p.list ?? 'top100');
  const ips = [...ctx.inventory.ips.keys()].filter((ip) => !ctx.inventory.scannedIps.has(ip));
  if (!ips.length) return;
  for (const ip of ips) ctx.inventory.scannedIps.add(ip);
  let useNmap: string | null = null;
  if (p.nmap) {
    const path = typeof p.nmap === 'object' ? (p.nmap.path ?? 'nmap') : 'nmap';
    if (isNmapAvailable(path)) useNmap = path;
    else yield log('warn', stage, 'nmap is not installed; using the built-in scanner', 'nmap_missing');
  }
  // Progress counts ports settled over all hosts, so a long scan of one host still shows
  // progress (and the watchdog sees the stage is alive).
  const progress = new ProgressTracker(stage, ips.length * ports.length, 1000);
  const settledPerHost = new Map<string, number>();
  let settledTotal = 0;
  const events = new Channel<ScanEvent>();
  const onSettled = (ip: string) => (n: number) => {
    settledTotal += n - (settledPerHost.get(ip) ?? 0);
    settledPerHost.set(ip, n);
    const pe = progress.tick(settledTotal);
    if (pe) events.push(pe);
  };
  const work = (async () => {
    for await (const [ip, result] of mapConcurrent(
      ips,
      p.hostConcurrency ?? 4,
      async (ip): Promise<[string, ServiceInfo[] | Error]> => {
        try {
          return [ip, await scanHost(ctx, ip, ports, useNmap, onSettled(ip))];
        } catch (e) {
          return [ip, e as Error];
        }
      },
      ctx.signal,
    )) {
      onSettled(ip)(ports.length);
      if (result instanceof Error) {
        events.push(
          log('warn', stage, `port scan of ${ip} failed: ${result.message}`, 'port_scan_failed', {
            address: ip,
          }),
        );
      } else if (!result.length) {
        ctx.inventory.skippedHosts.push({
          host: ip,
          reason: `no open port among ${ports.length} scanned`,
          code: 'no_open_port',
          params: { ports: ports.length },
        });
      } else {
        for (const info of result) {
          const asset = toAsset(info);
          if (ctx.inventory.addService(asset)) events.push({ type: 'asset', asset });
          if (info.tech) {
            const known: { name: string; version?: string } = { name: info.tech };
            if (info.version) known.version = info.version;
            ctx.inventory.serviceTechnologies.set(`${info.ip}:${info.port}`, known);
          }
          const tech = bannerTechnology(info);
          if (tech && ctx.inventory.addTechnology(tech)) events.push({ type: 'asset', asset: tech });
        }
      }
    }
  })();
  work.then(
    () => events.close(),
    (e) => events.close(e),
  );
  yield* events;
}

export function portsStage(): Stage {
  return {
    name: STAGE,
    class: 'class_resources',
    run: (ctx) => scanPendingHosts(ctx, STAGE),
  };
}
