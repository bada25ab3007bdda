// Child of dns-cold.ts: a fresh process brute-forcing the lab's DNS as a worker's first scans do
// (each scan its own resolver; `per` scans at once), wave after wave; one JSON line per wave.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [server = '', domainsArg = '', wavesArg = '3', root = ''] = process.argv.slice(2);
// The engine of the checkout at `root` (this script's own by default).
const src = (file: string) =>
  pathToFileURL(
    root ? path.join(root, 'packages/engine/src', file) : new URL(`../src/${file}`, import.meta.url).pathname,
  ).href;
const { resolveNames } = (await import(
  src('discovery/subdomain-stage.ts')
)) as typeof import('../src/discovery/subdomain-stage.ts');
const { builtinWordlist } = (await import(
  src('discovery/wordlist.ts')
)) as typeof import('../src/discovery/wordlist.ts');
const { DnsResolver } = (await import(
  src('dns/dns-resolver.ts')
)) as typeof import('../src/dns/dns-resolver.ts');

const domains = domainsArg.split(',');
const waves = Number(wavesArg);
const out: unknown[] = [];
for (let w = 0; w < waves; w++) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  let questions = 0;
  const found = await Promise.all(
    domains.map(async (domain) => {
      const names = builtinWordlist().map((l) => `${l}.${domain}`);
      questions += names.length;
      const resolver = new DnsResolver({ servers: [server] });
      let n = 0;
      await resolveNames(resolver, names, 200, new AbortController().signal, (r) => {
        if (r && (r.addresses.length || r.cnames.length)) n++;
      });
      resolver.close();
      return n;
    }),
  );
  const used = process.cpuUsage(cpu);
  out.push({
    wave: w + 1,
    cpuMs: Math.round((used.user + used.system) / 1000),
    usPerQ: Math.round(((used.user + used.system) / questions) * 10) / 10,
    ms: Math.round(performance.now() - started),
    found: found.join('/'),
  });
}
process.stdout.write(`${JSON.stringify(out)}\n`);
