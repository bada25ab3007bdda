import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type Lab, startLab } from '@perimeter/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TemplateFinding } from '../findings/types.ts';
import { loadTemplates, validateTemplates } from './template-loader.ts';
import { BUILTIN_TEMPLATES_DIR, runTemplateStage, type TemplateStageInput } from './template-stage.ts';
import type { CompiledTemplate } from './template-types.ts';

interface LabMap {
  templates: Record<string, string>;
  cveMatching: string[];
  unlistedLabFindings: { templateId: string; hosts: string[] }[];
}
const labMap = JSON.parse(readFileSync(path.join(BUILTIN_TEMPLATES_DIR, 'lab-map.json'), 'utf8')) as LabMap;

describe('built-in template pack', () => {
  let templates: CompiledTemplate[] = [];
  beforeAll(async () => {
    templates = (await loadTemplates(BUILTIN_TEMPLATES_DIR)).templates;
  });

  it('has at least 50 templates and every one parses and compiles', async () => {
    const report = await validateTemplates(BUILTIN_TEMPLATES_DIR);
    expect(report.invalid).toEqual([]);
    expect(report.skipped).toEqual([]);
    expect(report.valid).toBeGreaterThanOrEqual(50);
    expect(report.lines.at(-1)).toBe(`valid ${report.total} of ${report.total}`);
  });

  it('gives every template a full info block', () => {
    for (const t of templates) {
      expect(t.info.name, t.id).not.toBe('');
      expect(t.info.authors, t.id).toContain('perimeter');
      expect(t.info.description, t.id).toBeTruthy();
      expect(t.info.impact, t.id).toBeTruthy();
      expect(t.info.remediation, t.id).toBeTruthy();
      expect(t.info.references.length, t.id).toBeGreaterThan(0);
      expect(t.info.tags.length, t.id).toBeGreaterThan(0);
      expect(t.info.classification?.cweId?.length, t.id).toBeGreaterThan(0);
      expect(t.info.metadata['max-request'], t.id).toBeDefined();
    }
  });

  it('covers the common exposure families of the issue', () => {
    const tags = new Set(templates.flatMap((t) => t.info.tags));
    for (const tag of [
      'git',
      'env',
      'backup',
      'listing',
      'phpinfo',
      'panel',
      'default-page',
      'headers',
      'cors',
      'redirect',
      'expired',
      'self-signed',
      // deprecated protocol versions: the TLS stage (findings/tls-stage.ts), one handshake each
      'axfr',
      'spf',
      'dmarc',
      'takeover',
      'redis',
      'elasticsearch',
      'mongodb',
      'memcached',
      'cve',
    ])
      expect(tags, tag).toContain(tag);
  });

  it('maps every planted lab issue to a template that exists', () => {
    const ids = new Set(templates.map((t) => t.id));
    for (const [planted, templateId] of Object.entries(labMap.templates))
      expect(ids, `${planted} → ${templateId}`).toContain(templateId);
  });
});

describe('built-in pack against the lab', () => {
  let lab: Lab;
  let input: TemplateStageInput;
  let resolve: (h: string) => string | undefined;
  let templates: CompiledTemplate[];

  beforeAll(async () => {
    lab = await startLab({ subnet: '127.0.78', dnsPort: 0 });
    const expected = lab.expected();
    const names = new Map<string, string>();
    for (const s of expected.assets.subdomains) if (s.ips[0]) names.set(s.name, s.ips[0]);
    const ipToName = new Map<string, string>();
    for (const s of expected.assets.subdomains)
      if (s.ips[0] && !ipToName.has(s.ips[0])) ipToName.set(s.ips[0], s.name);
    resolve = (h) => names.get(h) ?? (/^[\d.]+$/.test(h) ? h : undefined);
    input = {
      urls: expected.assets.urls.map((u) => u.url),
      tlsEndpoints: expected.assets.urls
        .filter((u) => u.url.startsWith('https://'))
        .map((u) => `${new URL(u.url).hostname}:${new URL(u.url).port || 443}`),
      dnsNames: [...expected.domains, ...expected.assets.subdomains.map((s) => s.name)],
      services: expected.assets.services
        .filter((s) => !s.service.startsWith('http'))
        .map((s) => `${ipToName.get(s.ip) ?? s.ip}:${s.port}`),
    };
    templates = (await loadTemplates(BUILTIN_TEMPLATES_DIR)).templates;
  }, 30000);

  afterAll(async () => {
    await lab?.stop();
  });

  async function scan(): Promise<TemplateFinding[]> {
    const out: TemplateFinding[] = [];
    for await (const f of runTemplateStage(input, {
      templates,
      resolve,
      dnsServers: [lab.dns],
      rateLimit: 0,
      timeoutMs: 4000,
    }))
      out.push(f);
    return out;
  }

  it('reports every planted template issue, nothing unlisted, and the same fingerprints twice', async () => {
    const expected = lab.expected();
    const first = await scan();
    const found = first.map((f) => `${f.templateId}@${f.host}`);
    for (const [planted, templateId] of Object.entries(labMap.templates)) {
      const issue = expected.findings.find((f) => f.id === planted);
      expect(issue, planted).toBeDefined();
      const hit = first.find((f) => f.templateId === templateId && f.host === issue?.host);
      expect(hit, `${planted}: ${templateId} on ${issue?.host} (found: ${found.join(', ')})`).toBeDefined();
      if (hit && issue?.path && hit.matchedAt.startsWith('http'))
        expect(hit.matchedAt, planted).toContain(issue.path);
    }
    const allowed = new Set([
      ...Object.entries(labMap.templates).map(
        ([planted, t]) => `${t}@${expected.findings.find((f) => f.id === planted)?.host}`,
      ),
      ...labMap.unlistedLabFindings.flatMap((u) => u.hosts.map((h) => `${u.templateId}@${h}`)),
    ]);
    expect(found.filter((f) => !allowed.has(f))).toEqual([]);
    const second = await scan();
    expect(second.map((f) => f.fingerprint).sort()).toEqual(first.map((f) => f.fingerprint).sort());
  }, 60000);
});
