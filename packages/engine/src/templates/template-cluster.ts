import { isIntrusiveTemplate } from './intrusive.ts';
import type { CompiledHttpRequest, CompiledTemplate, HttpPartsWanted } from './template-types.ts';

/**
 * Request clustering, as nuclei does it (`pkg/templates/cluster.go`): templates whose one http
 * request is identical — same method, paths, headers, redirect and cookie settings, no
 * payloads, raw text, body, request condition or name — send it once per input, and every
 * template's operators run on the one response. A cluster stands in the template list as one
 * template whose `cluster` lists its members; the scanner reports one task per member.
 *
 * Stricter than nuclei where sharing could change an outcome: the template variables, the
 * host-redirect and size settings and the intrusive tag (which decides where a template may
 * run) are part of the key too, and `{{wait_for}}` paths and out-of-band templates (each
 * request carries its own call-back names) are never shared.
 */
export function clusterKey(template: CompiledTemplate): string | undefined {
  if (template.flow || template.oob || template.cluster || template.requests.length !== 1) return undefined;
  const req = template.requests[0];
  if (req?.protocol !== 'http' || !isClusterable(req)) return undefined;
  const headers = Object.entries(req.headers).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([
    req.method,
    req.specs.map((s) => (s.kind === 'path' ? s.path : '')),
    headers,
    req.redirects,
    req.hostRedirects,
    req.maxRedirects,
    req.cookieReuse,
    req.maxSize ?? null,
    template.variables,
    isIntrusiveTemplate(template),
  ]);
}

function isClusterable(req: CompiledHttpRequest): boolean {
  return (
    Object.keys(req.payloads).length === 0 &&
    req.body === undefined &&
    !req.reqCondition &&
    req.id === undefined &&
    req.specs.length > 0 &&
    req.specs.every((s) => s.kind === 'path' && s.waitMs === undefined)
  );
}

/** The derived parts any member reads (undefined — every part — when one of them reads all). */
function unionParts(members: CompiledTemplate[]): HttpPartsWanted | undefined {
  const out: HttpPartsWanted = { raw: false, request: false, header: false, title: false };
  for (const m of members) {
    const p = m.httpParts;
    if (!p) return undefined;
    out.raw ||= p.raw;
    out.request ||= p.request;
    out.header ||= p.header;
    out.title ||= p.title;
  }
  return out;
}

/**
 * The template list with every group of identical single-request templates replaced by one
 * cluster (in the place of its first member); the others are kept as they are, in order.
 */
export function clusterTemplates(templates: CompiledTemplate[]): CompiledTemplate[] {
  const keys = templates.map(clusterKey);
  const groups = new Map<string, CompiledTemplate[]>();
  for (let i = 0; i < templates.length; i++) {
    const key = keys[i];
    const t = templates[i] as CompiledTemplate;
    if (key === undefined) continue;
    const g = groups.get(key);
    if (g) g.push(t);
    else groups.set(key, [t]);
  }
  const out: CompiledTemplate[] = [];
  const placed = new Set<CompiledTemplate[]>();
  for (let i = 0; i < templates.length; i++) {
    const t = templates[i] as CompiledTemplate;
    const key = keys[i];
    const members = key === undefined ? undefined : groups.get(key);
    if (!members || members.length < 2) {
      out.push(t);
      continue;
    }
    if (placed.has(members)) continue;
    placed.add(members);
    const first = members[0] as CompiledTemplate;
    const parts = unionParts(members);
    const cluster: CompiledTemplate = {
      ...first,
      id: `cluster-${first.id}+${members.length - 1}`,
      indexedParts: [...new Set(members.flatMap((m) => m.indexedParts))],
      // Members extract into variables of their own (runCluster): the run writes only the
      // template variables they share.
      ownVariables: first.variables.length > 0,
      cluster: members,
    };
    if (parts) cluster.httpParts = parts;
    else delete cluster.httpParts;
    out.push(cluster);
  }
  return out;
}

/** How many template runs a list stands for (a cluster counts its members). */
export function memberCount(templates: CompiledTemplate[]): number {
  let n = 0;
  for (const t of templates) n += t.cluster?.length ?? 1;
  return n;
}
