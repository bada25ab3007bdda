import { ScanCoverage, type ScanEvent, type ScanSummary } from '@perimeter/engine';
import { describe, expect, it } from 'vitest';
import {
  FLUSH_EVERY,
  FLUSH_MS,
  fixRuleOf,
  isEmptyBatch,
  percentOf,
  resolveSubclasses,
  ScanAccumulator,
  stageList,
  subdomainLimitMessage,
  subdomainLimitReason,
  summaryFields,
} from './scans-fns.ts';
import { ScopeModel } from './scans-scope-fns.ts';

describe('ScopeModel', () => {
  it('an address row lists all its open ports and the names on it carry its banner technology', () => {
    const m = new ScopeModel();
    m.add({
      kind: 'subdomain',
      name: 'mail.a.test',
      domain: 'a.test',
      ips: ['10.0.0.5'],
      cnames: [],
      dangling: false,
      sources: [],
    });
    m.add({
      kind: 'service',
      ip: '10.0.0.5',
      port: 25,
      transport: 'tcp',
      service: 'smtp',
      tls: false,
      source: 'builtin',
    });
    // The address row appears only now, from a banner's technology: it must still list port 25.
    m.add({
      kind: 'technology',
      name: 'Exim',
      version: '4.87',
      confidence: 100,
      categories: [],
      target: '10.0.0.5:25',
      host: '10.0.0.5',
      port: 25,
      source: 'banner',
    });
    m.add({
      kind: 'service',
      ip: '10.0.0.5',
      port: 110,
      transport: 'tcp',
      service: 'pop3',
      tls: false,
      source: 'builtin',
    });
    expect(m.rows.get('10.0.0.5')?.openedPorts).toEqual([25, 110]);
    expect(m.rows.get('mail.a.test')?.openedPorts).toEqual([25, 110]);
    expect(m.rows.get('mail.a.test')?.technologies).toEqual([{ name: 'Exim', version: '4.87' }]);
    // A name resolved later gets the address's technology as well.
    m.add({
      kind: 'subdomain',
      name: 'smtp.a.test',
      domain: 'a.test',
      ips: ['10.0.0.5'],
      cnames: [],
      dangling: false,
      sources: [],
    });
    expect(m.rows.get('smtp.a.test')?.technologies).toEqual([{ name: 'Exim', version: '4.87' }]);
    // One banner event; the scope lists it on the address and both names: the count the chip shows.
    expect(m.technologyCount()).toBe(3);
  });

  it('gives a name resolved after the port scan the ports of its address', () => {
    const m = new ScopeModel();
    m.add({
      kind: 'subdomain',
      name: 'secure.a.test',
      domain: 'a.test',
      ips: ['10.0.0.1'],
      cnames: [],
      dangling: false,
      sources: [],
    });
    m.add({
      kind: 'service',
      ip: '10.0.0.1',
      port: 443,
      transport: 'tcp',
      service: 'https',
      tls: true,
      source: 'builtin',
    });
    m.add({
      kind: 'subdomain',
      name: 'portal.a.test',
      domain: 'a.test',
      ips: ['10.0.0.1'],
      cnames: [],
      dangling: false,
      sources: ['san'],
    });
    m.add({ kind: 'ip', ip: '10.0.0.2', version: 4, hostnames: [] });
    m.add({
      kind: 'service',
      ip: '10.0.0.2',
      port: 22,
      transport: 'tcp',
      service: 'ssh',
      tls: false,
      source: 'builtin',
    });
    expect(m.rows.get('portal.a.test')?.openedPorts).toEqual([443]);
    expect(m.rows.get('secure.a.test')?.services.map((s) => s.port)).toEqual([443]);
    expect(m.rows.get('10.0.0.2')).toMatchObject({
      kind: 'ip',
      openedPorts: [22],
      ipAddresses: ['10.0.0.2'],
    });
    expect(
      m
        .takeDirty()
        .map((r) => r.name)
        .sort(),
    ).toEqual(['10.0.0.2', 'portal.a.test', 'secure.a.test']);
    expect(m.takeDirty()).toEqual([]);
  });
});

describe('scan configuration', () => {
  const all = ['exploit_scanner', 'exploit_db', 'leakcheck'] as const;
  it('a full scan runs what the plan allows; a custom one what was chosen', () => {
    expect(resolveSubclasses('full', undefined, ['exploit_scanner'])).toEqual({
      subclasses: ['exploit_scanner'],
      classes: ['class_resources', 'class_exploitation'],
      refused: [],
    });
    expect(
      resolveSubclasses('custom', { classes: ['class_information_gathering'], subclasses: [] }, all)
        .subclasses,
    ).toEqual(['leakcheck']);
    expect(
      resolveSubclasses('custom', { classes: [], subclasses: ['exploit_db'] }, ['exploit_scanner']).refused,
    ).toEqual(['exploit_db']);
    expect(resolveSubclasses('custom', { classes: ['class_resources'], subclasses: [] }, all)).toEqual({
      subclasses: [],
      classes: ['class_resources'],
      refused: [],
    });
  });
  it('percent grows with the stages and stays below 100 until done', () => {
    const stages = stageList(['leakcheck']);
    expect(stages).toEqual(['subdomains', 'dns', 'ports', 'http', 'fingerprint', 'leaks']);
    expect(percentOf(stages, 'subdomains', 0, 10)).toBe(0);
    expect(percentOf(stages, 'ports', 5, 10)).toBe(41);
    expect(percentOf(stages, 'leaks', 10, 10)).toBe(99);
    expect(percentOf(stages, 'unknown', 1, 1)).toBe(0);
  });
});

describe('subdomain plan limit during a scan', () => {
  it('names the plan and its limit, and says how many found subdomains were not scanned', () => {
    const plan = { name: 'Starter', subdomains: 30 };
    expect(subdomainLimitReason(plan)).toBe('plan limit: the Starter plan covers 30 subdomains per scan');
    expect(subdomainLimitMessage(plan, 7)).toBe(
      'Plan limit: the Starter plan covers 30 subdomains per scan; the first 30 found were scanned and 7 more were not (listed in skipped_hosts).',
    );
  });
});

describe('what a finished scan may mark fixed', () => {
  const stage = (name: string, partial = false): ScanSummary['stages'][number] => ({
    name,
    status: 'done',
    durationMs: 1,
    skipped: partial ? [{ reason: 'check failed: timeout', count: 1, examples: [] }] : [],
    partial,
  });
  const summary = (stages: ScanSummary['stages']): ScanSummary => ({
    startedAt: '',
    finishedAt: '',
    durationMs: 1,
    aborted: false,
    partial: stages.some((s) => s.partial),
    counts: { subdomain: 0, ip: 0, service: 0, url: 0, technology: 0, email: 0, findings: 0 },
    stages,
    skippedHosts: [],
    refused: [],
  });
  const discovery = () => ['subdomains', 'dns', 'ports', 'http', 'fingerprint'].map((n) => stage(n));

  it('templates per check and host; a host no check ran against counts only when the scan was whole', () => {
    const coverage = new ScanCoverage();
    coverage.record('templates', 'dmarc-policy-none', 'acme.test', true);
    coverage.record('templates', 'dangling-cname', 'shop.acme.test', false);
    const whole = fixRuleOf(summary([...discovery(), stage('templates')]), ['exploit_scanner'], coverage);
    expect(whole.undecided).toEqual([]);
    expect(whole.isTemplateFixable?.('dmarc-policy-none', 'ACME.test')).toBe(true);
    expect(whole.isTemplateFixable?.('dangling-cname', 'shop.acme.test')).toBe(false);
    expect(whole.isTemplateFixable?.('git-config', 'gone.acme.test')).toBe(true);
    const cut = fixRuleOf(summary([...discovery(), stage('templates', true)]), ['exploit_scanner'], coverage);
    expect(cut.isTemplateFixable?.('dmarc-policy-none', 'acme.test')).toBe(true);
    expect(cut.isTemplateFixable?.('git-config', 'gone.acme.test')).toBe(false);
  });

  it('CVE and leak findings per stage: their stage or discovery cut short fixes none of them', () => {
    const coverage = new ScanCoverage();
    const subs = ['exploit_db', 'leakcheck'];
    expect(
      fixRuleOf(summary([...discovery(), stage('cve-matching'), stage('leaks')]), subs, coverage),
    ).toEqual({
      undecided: [],
    });
    expect(
      fixRuleOf(summary([...discovery(), stage('cve-matching', true), stage('leaks')]), subs, coverage)
        .undecided,
    ).toEqual(['exploit_db']);
    const dnsCut = [
      stage('subdomains'),
      stage('dns', true),
      stage('ports'),
      stage('http'),
      stage('fingerprint'),
    ];
    expect(
      fixRuleOf(summary([...dnsCut, stage('cve-matching'), stage('leaks')]), subs, coverage).undecided,
    ).toEqual(subs);
    // A stage that never ran decides nothing.
    expect(fixRuleOf(summary(discovery()), ['exploit_db'], coverage).undecided).toEqual(['exploit_db']);
  });
});

describe('ScanAccumulator: engine events → batches and progress', () => {
  const stages = ['subdomains', 'dns', 'ports', 'templates'];
  const targets = [
    { id: 't-domain', targetType: 'domain', value: 'a.test', mainDomain: 'a.test' },
    { id: 't-peer', targetType: 'peer', value: '10.0.0.9', mainDomain: null },
    { id: 't-net', targetType: 'network', value: '192.0.2.0/24', mainDomain: null },
  ];
  const sub = (name: string): ScanEvent => ({
    type: 'asset',
    asset: { kind: 'subdomain', name, domain: 'a.test', ips: [], cnames: [], dangling: false, sources: [] },
  });
  const templateFinding = (host: string): ScanEvent =>
    ({
      type: 'finding',
      finding: { subclass: 'exploit_scanner', fingerprint: `fp-${host}`, host, severity: 'high' },
    }) as unknown as ScanEvent;
  const leak: ScanEvent = {
    type: 'finding',
    finding: { subclass: 'leakcheck', fingerprint: 'fp-leak', mainDomain: 'a.test' },
  } as unknown as ScanEvent;

  it.each([
    ['a host of the domain', 'www.a.test', 't-domain'],
    ['the domain itself', 'a.test', 't-domain'],
    ['the peer address', '10.0.0.9', 't-peer'],
    ['an address of the network', '192.0.2.77', 't-net'],
    ['no target matches: the first', 'elsewhere.example', 't-domain'],
  ])('a finding on %s belongs to its target', (_what, host, target) => {
    const acc = new ScanAccumulator(stages, targets, 0);
    acc.add(templateFinding(host), 0);
    expect(acc.take(0).found.exploit_scanner.map((f) => f.targetId)).toEqual([target]);
  });

  it.each<[string, ScanEvent[], { stage: string; percent: number; etaSeconds: number | null }]>([
    ['nothing yet: the first stage', [], { stage: 'subdomains', percent: 0, etaSeconds: null }],
    [
      'progress within a stage, ETA from the elapsed time',
      [{ type: 'progress', stage: 'dns', done: 1, total: 2 }],
      { stage: 'dns', percent: 37, etaSeconds: 17 },
    ],
    [
      "the engine's own ETA wins",
      [{ type: 'progress', stage: 'dns', done: 1, total: 2, etaMs: 4_400 }],
      { stage: 'dns', percent: 37, etaSeconds: 4 },
    ],
    [
      "percent never goes back (the ETA follows the event's own percent)",
      [
        { type: 'progress', stage: 'ports', done: 0, total: 1 },
        { type: 'progress', stage: 'dns', done: 0, total: 1 },
      ],
      { stage: 'dns', percent: 50, etaSeconds: 30 },
    ],
    [
      "a stage's log moves to that stage",
      [{ type: 'log', level: 'info', stage: 'templates', message: 'go' }],
      { stage: 'templates', percent: 75, etaSeconds: null },
    ],
    [
      'a log of an unknown stage changes nothing',
      [{ type: 'log', level: 'info', stage: 'elsewhere', message: 'x' }],
      { stage: 'subdomains', percent: 0, etaSeconds: null },
    ],
  ])('%s', (_what, events, progress) => {
    const acc = new ScanAccumulator(stages, targets, 0);
    for (const e of events) acc.add(e, 10_000);
    expect(acc.progress).toEqual(progress);
  });

  it('counts assets and findings by kind and subclass; a batch takes what waits, once', () => {
    const acc = new ScanAccumulator(stages, targets, 0);
    for (const e of [sub('a.test'), sub('www.a.test'), sub('www.a.test'), templateFinding('a.test'), leak])
      acc.add(e, 0);
    expect(acc.counts).toEqual({ findings: 2, subdomain: 3, exploit_scanner: 1, leakcheck: 1 });
    const batch = acc.take(0);
    expect(batch.assets.map((a) => a.key)).toEqual(['a.test', 'www.a.test', 'www.a.test']);
    expect(batch.scopeRows.map((r) => r.name).sort()).toEqual(['a.test', 'www.a.test']);
    expect(batch.found.leakcheck.map((f) => f.targetId)).toEqual(['t-domain']);
    const next = acc.take(0);
    expect([next.assets, next.scopeRows, next.found.exploit_scanner, next.found.leakcheck]).toEqual([
      [],
      [],
      [],
      [],
    ]);
    expect(acc.counts.findings).toBe(2);
  });

  it.each<[string, ScanEvent[], boolean]>([
    ['nothing', [], true],
    ['only progress', [{ type: 'progress', stage: 'dns', done: 1, total: 2 }], true],
    ['a subdomain', [sub('www.a.test')], false],
    ['a template finding', [templateFinding('a.test')], false],
    ['a leak', [leak], false],
  ])('a batch of %s has no rows to write: %s', (_what, events, empty) => {
    const acc = new ScanAccumulator(stages, targets, 0);
    for (const e of events) acc.add(e, 0);
    expect(isEmptyBatch(acc.take(0))).toBe(empty);
  });

  it('tells whether an event came since the last batch (progress too), so a last write is not repeated', () => {
    const acc = new ScanAccumulator(stages, targets, 0);
    expect(acc.hasUnwritten).toBe(false);
    acc.add({ type: 'progress', stage: 'dns', done: 1, total: 2 }, 0);
    expect(acc.hasUnwritten).toBe(true);
    acc.take(0);
    expect(acc.hasUnwritten).toBe(false);
    acc.add(sub('www.a.test'), 0);
    expect(acc.hasUnwritten).toBe(true);
  });

  it.each([
    ['nothing waits, soon after', 0, 999, false],
    ['a second since the last batch', 0, FLUSH_MS, true],
    ['a full batch waits', FLUSH_EVERY, 1, true],
    ['one short of a full batch', FLUSH_EVERY - 1, 1, false],
  ])('a batch is due: %s', (_what, events, now, due) => {
    const acc = new ScanAccumulator(stages, targets, 0);
    for (let i = 0; i < events; i++) acc.add(sub(`h${i}.a.test`), 0);
    expect(acc.isDue(now)).toBe(due);
  });

  it("subdomains over the plan's limit are listed as skipped hosts with the plan's reason", () => {
    const acc = new ScanAccumulator(stages, targets, 0);
    acc.add(
      { type: 'log', level: 'info', code: 'subdomain_limit', message: 'x', data: { name: 'z.a.test' } },
      0,
    );
    acc.add({ type: 'log', level: 'info', code: 'subdomain_limit', message: 'x', data: { count: 3 } }, 0);
    expect(acc.overLimit).toEqual(['z.a.test']);
    const summary = { skippedHosts: [], stages: [] } as unknown as ScanSummary;
    const plan = { name: 'starter', subdomains: 5 };
    expect(summaryFields(summary, acc.overLimit, plan, []).skippedHosts).toEqual([
      {
        host: 'z.a.test',
        reason: subdomainLimitReason(plan),
        code: 'plan_subdomain_limit',
        params: { plan: 'starter', subdomains: 5 },
      },
    ]);
  });
});
