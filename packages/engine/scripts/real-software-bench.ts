/**
 * Perimeter against nmap -sT -sV, whatweb and sslscan on the real-software lab, in one session:
 * the tools take turns round after round (interleaved) on the same addresses and ports, and the
 * figures are medians. Prints what each named (products, exact versions, web technologies, TLS
 * findings), wall times and the load average. A benchmark, not a test.
 *
 * Median of ≥ 5 rounds; results in bench-results/, `--record` appends them to docs/benchmarks.md.
 *
 *   npx tsx packages/engine/scripts/real-software-bench.ts [rounds=5] [--record]
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ExpectedRealService, startRealLab } from '@perimeter/lab';
import { BenchReport, MIN_ROUNDS, median } from '@perimeter/lab/bench';
import { tlsIssues } from '../src/findings/tls-stage.ts';
import type { Asset, ServiceAsset, TechnologyAsset } from '../src/pipeline/events.ts';
import { scan } from '../src/pipeline/scan.ts';
import { parseNmapXml } from '../src/ports/nmap-adapter.ts';
import { TOP_100_PORTS } from '../src/ports/port-lists.ts';
import type { ServiceInfo } from '../src/ports/service-probes.ts';
import { httpScheme } from '../src/probe/http-stage.ts';
import { auditTls } from '../src/probe/tls-audit.ts';
import { ScopePolicy } from '../src/scope/scope-policy.ts';

const rounds = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? MIN_ROUNDS);
const report = new BenchReport('real-software', 'Services, versions and TLS on real software');
const say = (s: string) => report.say(s);

function run(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile(cmd, args, { maxBuffer: 64 * 1024 * 1024, timeout: 600_000 }, (_err, stdout) => resolve(stdout));
  });
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const r = await fn();
  return [r, performance.now() - t];
}

interface Named {
  ip: string;
  port: number;
  service?: string;
  product?: string;
  version?: string;
}

// The word of each expected product that any tool's name for it contains.
const KEYWORDS = [
  'tomcat',
  'lighttpd',
  'apache httpd',
  'nginx',
  'haproxy',
  'varnish',
  'squid',
  'openssh',
  'vsftpd',
  'postfix',
  'dovecot',
  'bind',
  'mariadb',
  'postgresql',
  'redis',
  'memcached',
  'mosquitto',
  'openldap',
  'tinyproxy',
  'dnsmasq',
];
const keyword = (product: string) =>
  KEYWORDS.find((k) => product.toLowerCase().includes(k)) ?? product.toLowerCase();

function score(expected: ExpectedRealService[], named: Named[]) {
  const byPort = new Map(named.map((n) => [`${n.ip}:${n.port}`, n]));
  let products = 0;
  let versions = 0;
  let wrongVersions = 0;
  const missed: string[] = [];
  for (const e of expected) {
    const n = byPort.get(`${e.ip}:${e.port}`);
    // nmap sometimes puts the product in the service name ("mosquitto version 2.0.11").
    const said = `${n?.product ?? ''} ${n?.service ?? ''}`.toLowerCase();
    const ok = n ? said.includes(keyword(e.product)) : false;
    if (ok) products++;
    else missed.push(`${e.ip}:${e.port} ${e.product} (got ${n?.product ?? 'nothing'})`);
    // A Debian revision after the exposed version ("9.18.49-1~deb12u3") still counts as right.
    const right = n?.version === e.version || (e.version && n?.version?.startsWith(`${e.version}-`));
    if (e.version && ok && right) versions++;
    else if (n?.version && !right) wrongVersions++;
  }
  const expectedPorts = new Set(expected.map((e) => `${e.ip}:${e.port}`));
  const extra = named.filter((n) => !expectedPorts.has(`${n.ip}:${n.port}`)).map((n) => `${n.ip}:${n.port}`);
  return { products, versions, wrongVersions, missed, extra };
}

const WHATWEB_NOISE = new Set([
  'Country',
  'IP',
  'Title',
  'HTTPServer',
  'UncommonHeaders',
  'RedirectLocation',
  'HTML5',
  'Script',
  'Email',
  'Frame',
  'PasswordField',
  'Cookies',
  'HttpOnly',
  'Meta-Author',
  // header names, not technologies
  'Via-Proxy',
  'X-Cache',
  'Content-Language',
  'Strict-Transport-Security',
  'X-Frame-Options',
]);

async function main(): Promise<void> {
  const lab = await startRealLab();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'perimeter-real-bench-'));
  try {
    const expected = lab.expected;
    const ips = [...new Set(expected.map((e) => e.ip))].sort();
    const ports = [...new Set([...TOP_100_PORTS, ...expected.map((e) => e.port)])].sort((a, b) => a - b);
    const urls = expected.flatMap((e) => {
      const scheme = httpScheme(e.service, e.tls);
      return scheme
        ? [`${scheme}://${e.ip}${e.port === (scheme === 'https' ? 443 : 80) ? '' : `:${e.port}`}/`]
        : [];
    });
    const tlsPorts = expected.filter((e) => e.tls).map((e) => `${e.ip}:${e.port}`);
    const policy = new ScopePolicy({ allowPrivate: true, allow: [`${lab.subnet}.0/24`] });
    say(
      `Real-software lab: ${expected.length} services of ${new Set(expected.map((e) => e.daemon)).size} daemons on ${ips.length} addresses; ${ports.length} ports each; ${rounds} rounds; Node ${process.version}, ${os.cpus().length} CPUs, load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} at start; lab started in ${lab.totalStartMs} ms.`,
    );
    const times: Record<string, number[]> = { perimeter: [], tls: [], nmap: [], whatweb: [], sslscan: [] };
    let perimeterAssets: Asset[] = [];
    let nmapNamed: ServiceInfo[] = [];
    let whatweb: { target: string; plugins: Record<string, { version?: string[] }> }[] = [];
    let sslscanXml: string[] = [];
    let perimeterTls: string[] = [];
    for (let r = 0; r < rounds; r++) {
      const [assets, tp] = await timed(async () => {
        const out: Asset[] = [];
        for await (const e of scan(ips, {
          scope: { allowPrivate: true, allow: [`${lab.subnet}.0/24`] },
          ports: { list: ports, bannerTimeoutMs: 1500, hostConcurrency: 8 },
          classes: ['class_resources'],
        }))
          if (e.type === 'asset') out.push(e.asset);
        return out;
      });
      perimeterAssets = assets;
      times.perimeter?.push(tp);
      const [audits, tt] = await timed(() =>
        Promise.all(
          tlsPorts.map((t) => {
            const [ip, port] = t.split(':') as [string, string];
            return auditTls(policy, ip, ip, Number(port));
          }),
        ),
      );
      // The ssl templates report the certificate's self-signature, expiry and name in a real scan.
      perimeterTls = audits.flatMap((a) => [
        ...tlsIssues(a).map((i) => `${a.ip}:${a.port} ${i.id}`),
        ...(a.certificate?.selfSigned
          ? [`${a.ip}:${a.port} tls-self-signed-certificate (ssl template)`]
          : []),
        ...(a.certificate?.expired ? [`${a.ip}:${a.port} tls-expired-certificate (ssl template)`] : []),
      ]);
      times.tls?.push(tt);
      const [xml, tn] = await timed(() =>
        run('nmap', ['-sT', '-sV', '-n', '-Pn', '--open', '-oX', '-', '-p', ports.join(','), ...ips]),
      );
      nmapNamed = parseNmapXml(xml);
      times.nmap?.push(tn);
      const log = path.join(dir, `whatweb-${r}.json`);
      const [, tw] = await timed(() => run('whatweb', ['-q', '--color=never', `--log-json=${log}`, ...urls]));
      whatweb = JSON.parse(readFileSync(log, 'utf8') || '[]');
      times.whatweb?.push(tw);
      const [xmls, ts] = await timed(() =>
        Promise.all(tlsPorts.map((t) => run('sslscan', ['--no-colour', '--xml=-', t]))),
      );
      sslscanXml = xmls;
      times.sslscan?.push(ts);
      say(
        `round ${r + 1}: perimeter ${(tp / 1000).toFixed(1)} s (+ TLS audit ${(tt / 1000).toFixed(1)} s), nmap ${(tn / 1000).toFixed(1)} s, whatweb ${(tw / 1000).toFixed(1)} s, sslscan ${(ts / 1000).toFixed(1)} s; load ${os.loadavg()[0]?.toFixed(1)}`,
      );
    }

    const services = perimeterAssets.filter((a): a is ServiceAsset => a.kind === 'service');
    const techs = perimeterAssets.filter((a): a is TechnologyAsset => a.kind === 'technology');
    const p = score(expected, services);
    const n = score(expected, nmapNamed);
    const withVersion = expected.filter((e) => e.version).length;
    const pct = (x: number, of: number) => `${x}/${of} (${Math.round((100 * x) / of)} %)`;
    say('\n| | Perimeter | nmap -sT -sV |\n| --- | --- | --- |');
    say(
      `| services named (product) | ${pct(p.products, expected.length)} | ${pct(n.products, expected.length)} |`,
    );
    say(`| exposed versions right | ${pct(p.versions, withVersion)} | ${pct(n.versions, withVersion)} |`);
    say(`| versions wrong or invented | ${p.wrongVersions} | ${n.wrongVersions} |`);
    say(`| ports where nothing listens | ${p.extra.length} | ${n.extra.length} |`);
    say(
      `| wall time, median of ${rounds} | ${(median(times.perimeter ?? []) / 1000).toFixed(1)} s | ${(median(times.nmap ?? []) / 1000).toFixed(1)} s |`,
    );
    say(`\nPerimeter missed: ${p.missed.join('; ') || 'none'}; extra: ${p.extra.join(' ') || 'none'}`);
    say(`nmap missed: ${n.missed.join('; ') || 'none'}; extra: ${n.extra.join(' ') || 'none'}`);
    say('\nnmap named:');
    for (const s of nmapNamed)
      say(`  ${s.ip}:${s.port} ${s.service} ${s.product ?? '-'} ${s.version ?? '-'}`);

    say('\nWeb technologies (Perimeter / whatweb):');
    let whatwebTotal = 0;
    let perimeterCovers = 0;
    for (const w of whatweb) {
      const u = new URL(w.target);
      const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
      const mine = techs.filter((t) => t.host === u.hostname && t.port === port);
      const theirs = Object.entries(w.plugins)
        .filter(([k]) => !WHATWEB_NOISE.has(k))
        .map(([k, v]) => (v.version?.[0] ? `${k} ${v.version[0]}` : k));
      whatwebTotal += theirs.length;
      const mineNames = mine.map((t) => t.name.toLowerCase());
      perimeterCovers += theirs.filter((t) => {
        const name = (t.split(' ')[0] ?? '').toLowerCase();
        return mineNames.some((m) => m.includes(name) || name.includes(m.split(' ')[0] ?? m));
      }).length;
      say(
        `  ${w.target}: ${mine.map((t) => (t.version ? `${t.name} ${t.version}` : t.name)).join(', ') || '-'}  /  ${theirs.join(', ') || '-'}`,
      );
    }
    say(
      `  Perimeter: ${techs.filter((t) => t.source === 'http').length} technologies on HTTP ports; whatweb: ${whatwebTotal}, of which Perimeter names ${perimeterCovers}.`,
    );

    say('\nTLS findings (Perimeter / sslscan):');
    const sslscanFindings = sslscanXml.flatMap((xml) => {
      const host = /<ssltest host="([^"]+)"[^>]*port="(\d+)"/.exec(xml);
      const at = host ? `${host[1]}:${host[2]}` : '?';
      const out: string[] = [];
      for (const m of xml.matchAll(/<protocol type="(ssl|tls)" version="([\d.]+)" enabled="1"/g))
        if (m[1] === 'ssl' || m[2] === '1.0' || m[2] === '1.1') out.push(`${at} ${m[1]}${m[2]} enabled`);
      for (const m of xml.matchAll(/<cipher status="\w+" sslversion="[^"]+" bits="\d+" cipher="([^"]+)"/g))
        if (/NULL|EXP|RC4|DES-CBC3|ADH|AECDH/.test(m[1] ?? '')) out.push(`${at} weak cipher ${m[1]}`);
      if (/<self-signed>true/.test(xml)) out.push(`${at} self-signed`);
      if (/<expired>true/.test(xml)) out.push(`${at} expired`);
      const bits = /<pk error="false" type="RSA" bits="(\d+)"/.exec(xml)?.[1];
      if (bits && Number(bits) < 2048) out.push(`${at} weak key ${bits}`);
      if (/<signature-algorithm>(sha1|md5)/i.test(xml)) out.push(`${at} SHA-1 signature`);
      return out;
    });
    for (const f of perimeterTls) say(`  Perimeter: ${f}`);
    for (const f of [...new Set(sslscanFindings)]) say(`  sslscan:   ${f}`);
    say(
      `  Perimeter ${perimeterTls.length} TLS findings, sslscan ${new Set(sslscanFindings).size} problems; TLS audit ${(median(times.tls ?? []) / 1000).toFixed(1)} s, sslscan ${(median(times.sslscan ?? []) / 1000).toFixed(1)} s, whatweb ${(median(times.whatweb ?? []) / 1000).toFixed(1)} s (medians).`,
    );
    say(
      `load average at end: ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    if (rounds < MIN_ROUNDS) report.notRecordable(`${rounds} rounds (at least ${MIN_ROUNDS})`);
    report.finish();
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await lab.stop();
  }
}

await main();
