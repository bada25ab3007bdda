// Start-up stays small (`--help` loads nothing but this file): the pipeline, and the finding-family
// stages (templates, CVE, leaks) only when a scan runs them, are imported on demand.
import { parseArgs } from 'node:util';
import type { LocalLeakIndex } from '../leaks/local-leak-index.ts';
import type { Asset, ScanEvent, ScanSummary } from '../pipeline/events.ts';
import type { partialText as PartialText } from '../pipeline/scan.ts';
import type { ScanConfig } from '../pipeline/scan-config.ts';

const USAGE = `usage: perimeter-scan <target...> [options]

  <target>               domain, IP address (peer) or CIDR network
  --dns-server host:port DNS server to use (repeatable; default: the system's)
  --ports LIST           top100 (default), top1000, 1-65535, or 22,80,8000-8100
  --allow-private        allow loopback, private and other reserved addresses
  --allow CIDR           only contact addresses in CIDR (repeatable)
  --ct-url URL           crt.sh-compatible certificate-transparency API
  --wordlist FILE        extra subdomain labels, one a line
  --no-bruteforce        skip the built-in wordlist
  --nmap                 use nmap -sT -sV when installed
  --fingerprints DIR     extra Wappalyzer-format fingerprint directory (repeatable)
  --resources-only       only class_resources (no template, CVE or leak checks)
  --templates DIR        extra nuclei template directory (repeatable; the built-in pack always runs)
  --cve-feed FILE        NVD 1.1 / NVD 2.0 / retire.js feed for CVE matching (repeatable; .json or .gz)
  --leaks FILE           leak corpus (email:password lines or CSV) for the leak lookup
  --json                 JSON lines on stdout (default: a table at the end)
  -h, --help

Exit status: 0 done, 3 partial (a stage was ended by its time limit or watchdog, or skipped
work — the summary says what and why), 1 error, 2 usage, 130 cancelled.`;

function describe(a: Asset): [string, string] {
  switch (a.kind) {
    case 'subdomain':
      return [
        a.name,
        [
          a.ips.join(' '),
          a.cnames.length ? `CNAME ${a.cnames.join(' → ')}` : '',
          a.dangling ? '(dangling)' : '',
        ]
          .filter(Boolean)
          .join('  '),
      ];
    case 'ip':
      return [a.ip, a.hostnames.join(' ')];
    case 'service':
      return [`${a.ip}:${a.port}`, [a.service, a.product, a.version].filter(Boolean).join(' ')];
    case 'url':
      return [a.url, `${a.status} ${a.title}${a.tls?.expired ? ' [expired certificate]' : ''}`];
    case 'technology':
      return [a.target, `${a.name}${a.version ? ` ${a.version}` : ''}`];
    case 'email':
      return [a.email, a.sources.join(' ')];
  }
}

export async function main(argv: string[]): Promise<number> {
  // `perimeter-scan templates validate <dir>` (finding families, src/templates/templates-cli.ts).
  if (argv[0] === 'templates')
    return (await import('../templates/templates-cli.ts')).runTemplatesCommand(argv.slice(1));
  let parsed: ReturnType<typeof parseArgs>;
  const options = {
    'dns-server': { type: 'string', multiple: true },
    ports: { type: 'string' },
    'allow-private': { type: 'boolean' },
    allow: { type: 'string', multiple: true },
    'ct-url': { type: 'string' },
    wordlist: { type: 'string' },
    'no-bruteforce': { type: 'boolean' },
    nmap: { type: 'boolean' },
    fingerprints: { type: 'string', multiple: true },
    'resources-only': { type: 'boolean' },
    templates: { type: 'string', multiple: true },
    'cve-feed': { type: 'string', multiple: true },
    leaks: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true });
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const v = parsed.values as {
    'dns-server'?: string[];
    ports?: string;
    'allow-private'?: boolean;
    allow?: string[];
    'ct-url'?: string;
    wordlist?: string;
    'no-bruteforce'?: boolean;
    nmap?: boolean;
    fingerprints?: string[];
    'resources-only'?: boolean;
    templates?: string[];
    'cve-feed'?: string[];
    leaks?: string;
    json?: boolean;
    help?: boolean;
  };
  if (v.help || !parsed.positionals.length) {
    process.stdout.write(`${USAGE}\n`);
    return v.help ? 0 : 2;
  }
  const { scan, partialText } = await import('../pipeline/scan.ts');
  const config: ScanConfig = {
    dns: v['dns-server'] ? { servers: v['dns-server'] } : {},
    scope: { allowPrivate: v['allow-private'] ?? false, ...(v.allow ? { allow: v.allow } : {}) },
    discovery: {
      bruteforce: !v['no-bruteforce'],
      ...(v['ct-url'] ? { ctUrl: v['ct-url'] } : {}),
      ...(v.wordlist ? { wordlistFile: v.wordlist } : {}),
    },
    ports: { list: v.ports ?? 'top100', nmap: v.nmap ?? false },
    fingerprints: { dirs: v.fingerprints ?? [] },
    ...(v['resources-only']
      ? { classes: ['class_resources'] }
      : {
          extraStages: (await import('../findings/finding-stages.ts')).createFindingStages({
            templates: { dirs: v.templates ?? [] },
            vulndb: { feedFiles: v['cve-feed'] ?? [] },
            leaks: { sources: v.leaks ? [await loadLeakIndex(v.leaks)] : [] },
          }),
        }),
  };

  const ac = new AbortController();
  const onSigint = () => {
    process.stderr.write('\ncancelling…\n');
    ac.abort();
  };
  process.once('SIGINT', onSigint);
  const assets: Asset[] = [];
  const isTty = process.stderr.isTTY;
  let partial = false;
  try {
    for await (const event of scan(parsed.positionals, config, { signal: ac.signal })) {
      if (v.json) process.stdout.write(`${JSON.stringify(event)}\n`);
      printProgress(event, isTty);
      if (event.type === 'asset') assets.push(event.asset);
      if (event.type === 'summary') {
        partial = event.summary.partial;
        if (!v.json) printTable(assets, event, partialText);
        if (partial)
          process.stderr.write(`PARTIAL: ${partialLines(event.summary, partialText).join('; ')}\n`);
      }
    }
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n`);
    return 1;
  } finally {
    process.off('SIGINT', onSigint);
  }
  return ac.signal.aborted ? 130 : partial ? 3 : 0;
}

function partialLines(s: ScanSummary, partialText: typeof PartialText): string[] {
  return s.stages.filter((st) => st.partial).map((st) => `${st.name}: ${partialText(st)}`);
}

/** The leak corpus is imported into an index encrypted with a key that lives only in this process. */
async function loadLeakIndex(file: string): Promise<LocalLeakIndex> {
  const [{ randomBytes }, { LocalLeakIndex }] = await Promise.all([
    import('node:crypto'),
    import('../leaks/local-leak-index.ts'),
  ]);
  const index = new LocalLeakIndex(randomBytes(32));
  await index.importFile(file);
  return index;
}

function printProgress(e: ScanEvent, isTty: boolean): void {
  if (e.type === 'progress') {
    const eta = e.etaMs !== undefined ? ` eta ${(e.etaMs / 1000).toFixed(1)}s` : '';
    const line = `[${e.stage}] ${e.done}/${e.total}${eta}`;
    if (isTty) process.stderr.write(`\r${line.padEnd(60)}`);
    else if (e.done === e.total) process.stderr.write(`${line}\n`);
  } else if (e.type === 'log' && e.level !== 'debug') {
    process.stderr.write(`${isTty ? '\r' : ''}${e.level}: ${e.message}\n`);
  }
}

function printTable(
  assets: Asset[],
  summary: Extract<ScanEvent, { type: 'summary' }>,
  partialText: typeof PartialText,
): void {
  const out: string[] = [];
  const kinds: Asset['kind'][] = ['subdomain', 'ip', 'service', 'url', 'technology', 'email'];
  for (const kind of kinds) {
    const rows = assets.filter((a) => a.kind === kind).map(describe);
    if (!rows.length) continue;
    out.push(`\n${kind === 'technology' ? 'TECHNOLOGIES' : `${kind.toUpperCase()}S`} (${rows.length})`);
    const width = Math.min(48, Math.max(...rows.map((r) => r[0].length)));
    for (const [k, val] of rows.sort((a, b) => a[0].localeCompare(b[0])))
      out.push(`  ${k.padEnd(width)}  ${val}`);
  }
  const s = summary.summary;
  out.push(
    `\n${s.aborted ? 'cancelled' : s.partial ? 'PARTIAL' : 'done'} in ${(s.durationMs / 1000).toFixed(1)} s`,
  );
  for (const h of s.skippedHosts) out.push(`  skipped ${h.host}: ${h.reason}`);
  for (const r of s.refused)
    out.push(`  refused ${r.address}${r.host ? ` (${r.host})` : ''} via ${r.via}: ${r.reason}`);
  for (const st of s.stages)
    if (st.partial || st.status !== 'done') out.push(`  stage ${st.name}: ${partialText(st) || st.status}`);
  process.stdout.write(`${out.join('\n')}\n`);
}
