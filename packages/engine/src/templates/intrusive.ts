import { ScopePolicy } from '../scope/scope-policy.ts';
import type { Target } from '../scope/targets.ts';
import type { CompiledTemplate } from './template-types.ts';

/**
 * Tags of templates that send attack payloads (reading files through traversal, running
 * commands, injecting queries, trying passwords) rather than looking at what any visitor sees.
 */
export const INTRUSIVE_TAGS = new Set([
  'intrusive',
  'dos',
  'fuzz',
  'fuzzing',
  'bruteforce',
  'brute-force',
  'default-login',
  'lfi',
  'rfi',
  'traversal',
  'rce',
  'sqli',
  'xss',
  'ssrf',
  'xxe',
  'injection',
  'deserialization',
  'file-upload',
  'fileupload',
]);

export function isIntrusiveTemplate(template: Pick<CompiledTemplate, 'info'>): boolean {
  return template.info.tags.some((tag) => INTRUSIVE_TAGS.has(tag.toLowerCase()));
}

/** The host of a template input: a base URL, `host:port` or a DNS name. */
export function inputHost(input: string): string {
  const url = /^[a-z][a-z0-9+.-]*:\/\/(\[[^\]]+\]|[^/:?#]+)/i.exec(input);
  if (url) return (url[1] as string).replace(/^\[|\]$/g, '');
  const bracketed = /^\[([^\]]+)\]/.exec(input);
  if (bracketed) return bracketed[1] as string;
  return input.replace(/:\d+$/, '');
}

/**
 * Where intrusive templates may run: addresses the user proved (the scan's verified peers and
 * networks, plus `allow` — their other proven ranges and what the operator allows). A host runs
 * them only when every address it resolved to is inside; a domain proves its DNS, not the
 * servers its names point at.
 */
export function intrusiveGate(targets: readonly Target[], allow: string[]) {
  const proven = [
    ...allow,
    ...targets.flatMap((t) => (t.type === 'peer' ? [t.address] : t.type === 'network' ? [t.cidr] : [])),
  ];
  const policy = new ScopePolicy({ allowPrivate: true, allow: proven, deny: [] });
  return (addresses: string[]): boolean =>
    proven.length > 0 && addresses.length > 0 && addresses.every((a) => policy.isAllowed(a));
}
