import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TemplateFinding } from '../src/findings/types.ts';
import type { UrlAsset } from '../src/pipeline/events.ts';
import { Inventory } from '../src/pipeline/inventory.ts';
import type { ScanConfig } from '../src/pipeline/scan-config.ts';
import type { StageContext } from '../src/pipeline/stage.ts';
import { ScanCoverage, StageReport } from '../src/pipeline/stage-report.ts';
import { defaultExecutors } from '../src/protocols/index.ts';
import { compileTemplateSource } from '../src/templates/template-compile.ts';
import { TemplateScanner, type TemplateScanOptions } from '../src/templates/template-scanner.ts';
import type { CompiledTemplate } from '../src/templates/template-types.ts';

export function compileOrThrow(yaml: string, options: { templatesDir?: string } = {}): CompiledTemplate {
  const r = compileTemplateSource(yaml, 'test.yaml', options);
  if (r.status !== 'ok') throw new Error(`${r.status}: ${'field' in r ? r.field : ''} ${r.reason}`);
  return r.template;
}

export async function startHttp(
  handler: http.RequestListener,
  host = '127.0.0.1',
): Promise<{ url: string; port: number; close: () => Promise<void>; server: http.Server }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}`,
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function scanAll(
  templates: CompiledTemplate[],
  inputs: string[],
  options: TemplateScanOptions = {},
): Promise<{ findings: TemplateFinding[]; scanner: TemplateScanner }> {
  const scanner = new TemplateScanner(defaultExecutors, { rateLimit: 0, timeoutMs: 3000, ...options });
  const findings: TemplateFinding[] = [];
  try {
    for await (const f of scanner.scan(templates, inputs)) findings.push(f);
  } finally {
    await scanner.close();
  }
  return { findings, scanner };
}

/** A small YAML template with an info block around the given protocol section. */
export function tpl(id: string, body: string, severity = 'medium'): string {
  return `id: ${id}\ninfo:\n  name: ${id}\n  severity: ${severity}\n  author: test\n${body}`;
}

/** A templates-stage context with one web endpoint in its inventory (everything in scope). */
export function urlStageContext(
  url: string,
  host: string,
  port: number,
  config: ScanConfig = {},
): StageContext {
  const inventory = new Inventory();
  inventory.urls.set(url, { kind: 'url', url, host, port } as UrlAsset);
  return {
    targets: [],
    config,
    inventory,
    resolver: { servers: [] },
    policy: { isAllowed: () => true },
    isInTarget: () => true,
    report: new StageReport('templates', new ScanCoverage()),
    signal: new AbortController().signal,
  } as unknown as StageContext;
}
