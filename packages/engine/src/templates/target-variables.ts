import { parse as parseDomain } from 'tldts';
import type { Variables } from './run-types.ts';

export interface ParsedTarget {
  input: string;
  scheme?: 'http' | 'https';
  hostname: string;
  port?: number;
  path: string;
}

/** Accepts `https://host:8443/path`, `host:port`, `host`, `[::1]:22`. */
export function parseTarget(input: string): ParsedTarget {
  const trimmed = input.trim();
  if (/^https?:\/\//i.test(trimmed)) {
    const u = new URL(trimmed);
    const scheme = u.protocol === 'https:' ? 'https' : 'http';
    return {
      input: trimmed,
      scheme,
      hostname: u.hostname.replace(/^\[|\]$/g, ''),
      ...(u.port ? { port: Number(u.port) } : { port: scheme === 'https' ? 443 : 80 }),
      path: u.pathname === '/' ? '' : u.pathname.replace(/\/$/, ''),
    };
  }
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(trimmed);
  if (v6)
    return { input: trimmed, hostname: v6[1] as string, ...(v6[2] ? { port: Number(v6[2]) } : {}), path: '' };
  const m = /^([^:/]+)(?::(\d+))?$/.exec(trimmed);
  if (!m) throw new Error(`invalid target '${input}'`);
  return { input: trimmed, hostname: m[1] as string, ...(m[2] ? { port: Number(m[2]) } : {}), path: '' };
}

function hostForUrl(hostname: string): string {
  return hostname.includes(':') ? `[${hostname}]` : hostname;
}

/** nuclei's built-in variables for an input. */
export function targetVariables(t: ParsedTarget): Variables {
  const scheme = t.scheme ?? (t.port === 443 ? 'https' : 'http');
  const port = t.port ?? (scheme === 'https' ? 443 : 80);
  const defaultPort = (scheme === 'https' && port === 443) || (scheme === 'http' && port === 80);
  const host = hostForUrl(t.hostname);
  const hostPort = defaultPort && t.scheme ? host : `${host}:${port}`;
  const root = `${scheme}://${defaultPort ? host : `${host}:${port}`}`;
  const parsed = parseDomain(t.hostname, { allowPrivateDomains: true });
  const file = t.path.split('/').pop() ?? '';
  return {
    Input: t.input,
    BaseURL: `${root}${t.path}`,
    RootURL: root,
    Hostname: hostPort,
    Host: t.hostname,
    Port: String(port),
    Path: t.path,
    File: file,
    Scheme: scheme,
    FQDN: t.hostname,
    RDN: parsed.domain ?? t.hostname,
    DN: parsed.domainWithoutSuffix ?? t.hostname,
    TLD: parsed.publicSuffix ?? '',
    SD: parsed.subdomain ?? '',
    ip: /^[\d.]+$/.test(t.hostname) || t.hostname.includes(':') ? t.hostname : '',
  };
}

const PREPARED_MAX = 1024;
/** Runs after which an input's variables count as much reused (see `isReusedInputVariables`). */
const REUSED_AFTER = 16;

interface Prepared {
  target: ParsedTarget;
  variables: Readonly<Variables>;
  runs: number;
}
const prepared = new Map<string, Prepared>();
const reused = new WeakSet<object>();

/**
 * Whether `vars` are the variables of an input that many template runs have read (see
 * `preparedTarget`): responses built over them pay a new object's hidden classes once per
 * input (~30 µs for a response's parts) and share them from then on; an input that few
 * templates run against would never earn that back.
 */
export function isReusedInputVariables(vars: object): boolean {
  return reused.has(vars);
}

/**
 * An input parsed with its variables, remembered for the last inputs (shared, never written):
 * every template runs against the same inputs of a batch, and the public-suffix lookup behind
 * RDN/TLD is the dearest part of a template run's start. Bounded: full, it starts over. Each
 * call counts as a template run against the input.
 *
 * The variables have no prototype (`{{constructor}}` names nothing) and are not frozen: runs
 * that write variables put their own over them, and a frozen property would forbid a same-named
 * one there (a template variable `Host`).
 */
export function preparedTarget(input: string): { target: ParsedTarget; variables: Readonly<Variables> } {
  let hit = prepared.get(input);
  if (!hit) {
    const target = Object.freeze(parseTarget(input));
    hit = {
      target,
      variables: Object.assign(Object.create(null) as Variables, targetVariables(target)),
      runs: 0,
    };
    if (prepared.size >= PREPARED_MAX) prepared.clear();
    prepared.set(input, hit);
  }
  if (++hit.runs === REUSED_AFTER) reused.add(hit.variables);
  return hit;
}
