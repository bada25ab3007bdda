export interface RawUrl {
  scheme: 'http' | 'https';
  origin: string;
  /** Path and query exactly as written (never normalised). */
  path: string;
  /** host[:port] as written. */
  host: string;
  hostname: string;
  port: number;
  /** `hostname:port` (the error budget's and fingerprint's key). */
  endpoint: string;
}

const AUTHORITY_CACHE_SIZE = 1024;
// By scheme, keyed by the authority as written (no key string built per lookup).
const authorities = { http: new Map<string, Authority>(), https: new Map<string, Authority>() };
type Authority = Readonly<Omit<RawUrl, 'path'>>;

/** Scheme and authority parsed once (WHATWG rules for the host), then served from a small cache. */
function parseAuthority(scheme: 'http' | 'https', written: string): Authority {
  const cache = authorities[scheme];
  const hit = cache.get(written);
  if (hit) return hit;
  const authority = written.replace(/^[^@]*@/, '');
  const parsed = new URL(`${scheme}://${authority}/`);
  const hostname = parsed.hostname.replace(/^\[|\]$/g, '');
  const port = parsed.port ? Number(parsed.port) : scheme === 'https' ? 443 : 80;
  const value = {
    scheme,
    origin: `${scheme}://${parsed.host}`,
    host: parsed.host,
    hostname,
    port,
    endpoint: `${hostname}:${port}`,
  };
  // Bounded: a scan of many hosts starts over rather than growing.
  if (cache.size >= AUTHORITY_CACHE_SIZE) cache.clear();
  cache.set(written, value);
  return value;
}

// The path runs to the fragment: spaces and other characters are encoded when sent.
const RAW_URL = /^(https?):\/\/([^/?#\s]+)([^#]*)/i;
const SPLIT_CACHE_SIZE = 512;
const splits = new Map<string, Readonly<RawUrl>>();

/**
 * Splits a URL without the WHATWG normalisation that would resolve `..` and `%2e` segments.
 * A request's URL is split several times on its way (build, send, parts, evidence): the
 * answers of the last few hundred URLs are kept (shared: read-only; not frozen, which cost
 * more than the split).
 */
export function splitRawUrl(url: string): Readonly<RawUrl> {
  const hit = splits.get(url);
  if (hit) return hit;
  const m = RAW_URL.exec(url.trim());
  if (!m) throw new Error(`invalid URL '${url}'`);
  const scheme = (m[1] as string).toLowerCase() as 'http' | 'https';
  let path = m[3] ?? '';
  if (path === '' || path.startsWith('?')) path = `/${path}`;
  const a = parseAuthority(scheme, m[2] as string);
  const value: RawUrl = {
    scheme,
    origin: a.origin,
    path,
    host: a.host,
    hostname: a.hostname,
    port: a.port,
    endpoint: a.endpoint,
  };
  if (splits.size >= SPLIT_CACHE_SIZE) splits.clear();
  splits.set(url, value);
  return value;
}

// What undici would refuse, checked here: undici refuses a request inside a pool's connection
// and leaves that connection waiting for a 'drain' that never comes — after as many refusals
// as connections per origin, every later request to the origin queued forever.
const NOT_VISIBLE_ASCII = /[^\x21-\x7e]/;

function percentEncode(char: string): string {
  let out = '';
  for (const byte of Buffer.from(char, 'utf8'))
    out += `%${byte < 16 ? '0' : ''}${byte.toString(16).toUpperCase()}`;
  return out;
}

/**
 * The request target as nuclei sends it: spaces, control and non-ASCII characters
 * percent-encoded as UTF-8 (`管理员` → `%E7%AE%A1…`), a space in the query as `+` (nuclei's
 * query encoding), everything else — `%2e`, `..`, reserved characters — untouched.
 */
export function encodeRequestTarget(target: string): string {
  if (!NOT_VISIBLE_ASCII.test(target)) return target;
  const q = target.indexOf('?');
  let out = '';
  let i = 0;
  for (const char of target) {
    const inQuery = q >= 0 && i > q;
    i += char.length;
    const code = char.codePointAt(0) as number;
    if (code > 0x20 && code < 0x7f) out += char;
    else if (code === 0x20 && inQuery) out += '+';
    else out += percentEncode(char);
  }
  return out;
}
