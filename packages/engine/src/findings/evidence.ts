import { createHash } from 'node:crypto';
import { getDomain } from 'tldts';

const SECRET_PATTERNS: [RegExp, (m: string, ...g: string[]) => string][] = [
  // Header values that carry credentials.
  [
    /^((?:authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-auth-token)\s*:\s*)(.+)$/gim,
    (_m, k, v) => `${k}${maskValue(v)}`,
  ],
  // key=value / "key": "value" pairs whose key looks secret.
  [
    /((?:pass(?:word|wd)?|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|auth)[\w-]*["']?\s*[=:]\s*["']?)([^\s"'&,;<]{3,})/gi,
    (_m, k, v) => `${k}${maskValue(v)}`,
  ],
  // Well-known credential formats.
  [/\b(AKIA|ASIA)[0-9A-Z]{16}\b/g, (m) => maskValue(m)],
  [/\bgh[pousr]_[A-Za-z0-9]{30,}\b/g, (m) => maskValue(m)],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}\b/g, (m) => maskValue(m)],
  [
    /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g,
    () => '-----BEGIN PRIVATE KEY----- [masked] -----END PRIVATE KEY-----',
  ],
  // Credentials inside URLs.
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)([^\s@/]+)(@)/gi, (_m, a, p, b) => `${a}${maskValue(p)}${b}`],
];

/** Keeps the first and last two characters: `password` → `pa****rd`. */
export function maskValue(value: string): string {
  if (value.length <= 4) return '*'.repeat(value.length);
  if (value.length <= 6) return `${value[0]}${'*'.repeat(value.length - 2)}${value[value.length - 1]}`;
  return `${value.slice(0, 2)}${'*'.repeat(Math.min(value.length - 4, 24))}${value.slice(-2)}`;
}

export function maskSecrets(text: string): string {
  let out = text;
  for (const [re, fn] of SECRET_PATTERNS)
    out = out.replace(re, fn as (substring: string, ...args: string[]) => string);
  return out;
}

export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[... ${text.length - max} more characters truncated]`;
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A curl command that reproduces an HTTP request. */
export function toCurl(method: string, url: string, headers: Record<string, string>, body?: string): string {
  const parts = ['curl', '-i', '-s', '-k'];
  if (method !== 'GET' || body) parts.push('-X', method);
  parts.push(shellQuote(url));
  for (const [k, v] of Object.entries(headers)) parts.push('-H', shellQuote(`${k}: ${v}`));
  if (body) parts.push('--data-binary', shellQuote(body));
  return parts.join(' ');
}

/** Stable finding key: the same issue on the same endpoint gets the same fingerprint every scan. */
export function findingFingerprint(...parts: (string | number | undefined)[]): string {
  return createHash('sha256')
    .update(parts.map((p) => String(p ?? '')).join('\u0000'))
    .digest('hex')
    .slice(0, 32);
}

export interface HostNames {
  host: string;
  mainDomain: string;
  subdomain: string;
}

/** Splits a host name into registrable domain and subdomain (IP addresses are their own domain). */
export function hostNames(hostname: string): HostNames {
  const host = hostname
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
  if (/^[\d.]+$/.test(host) || host.includes(':')) return { host, mainDomain: host, subdomain: '' };
  const main = getDomain(host, { allowPrivateDomains: true }) ?? host;
  const sub = host === main ? '' : host.slice(0, host.length - main.length - 1);
  return { host, mainDomain: main, subdomain: sub };
}
