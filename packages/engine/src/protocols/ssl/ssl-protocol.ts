import { X509Certificate } from 'node:crypto';
import tls, { type PeerCertificate, type SecureVersion } from 'node:tls';
import type { DslValue } from '../../operators/dsl/dsl-functions.ts';
import { interpolate } from '../../operators/dsl/dsl-interpolate.ts';
import type { ProtocolExecutor } from '../../templates/template-runner.ts';
import { TLS_VERSIONS } from './ssl-compile.ts';

export interface TlsInfo {
  host: string;
  ip: string;
  port: number;
  tls_version: string;
  cipher: string;
  subject_cn: string;
  subject_dn: string;
  subject_org: string[];
  subject_an: string[];
  issuer_cn: string;
  issuer_dn: string;
  issuer_org: string[];
  not_before: string;
  not_after: string;
  expired: boolean;
  self_signed: boolean;
  mismatched: boolean;
  wildcard_certificate: boolean;
  serial: string;
  fingerprint_sha256: string;
}

const NODE_TO_NUCLEI: Record<string, string> = {
  SSLv3: 'ssl30',
  TLSv1: 'tls10',
  'TLSv1.1': 'tls11',
  'TLSv1.2': 'tls12',
  'TLSv1.3': 'tls13',
};

function asList(v: string | string[] | undefined): string[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

function dn(name: Record<string, string | string[]> | undefined): string {
  if (!name) return '';
  return Object.entries(name)
    .map(([k, v]) => `${k}=${asList(v).join('+')}`)
    .join(', ');
}

function hostMatches(host: string, names: string[]): boolean {
  const h = host.toLowerCase();
  return names.some((n) => {
    const name = n.toLowerCase();
    if (name === h) return true;
    if (name.startsWith('*.')) {
      const rest = name.slice(2);
      return h.endsWith(`.${rest}`) && h.split('.').length === rest.split('.').length + 1;
    }
    return false;
  });
}

/** Handshake and certificate facts, in tlsx's field names (what nuclei's ssl templates read). */
export function describeTls(host: string, ip: string, port: number, socket: tls.TLSSocket): TlsInfo {
  const cert = socket.getPeerCertificate(false) as PeerCertificate;
  const sans = (cert.subjectaltname ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.startsWith('DNS:') || s.startsWith('IP Address:'))
    .map((s) => s.replace(/^DNS:|^IP Address:/, ''));
  const subject = cert.subject as unknown as Record<string, string | string[]> | undefined;
  const issuer = cert.issuer as unknown as Record<string, string | string[]> | undefined;
  const cn = asList(subject?.CN)[0] ?? '';
  let selfSigned = dn(subject) === dn(issuer);
  if (cert.raw) {
    try {
      const x = new X509Certificate(cert.raw);
      selfSigned = x.checkIssued(x) && x.verify(x.publicKey);
    } catch {
      // keep the DN comparison
    }
  }
  const notAfter = cert.valid_to ? new Date(cert.valid_to) : undefined;
  const notBefore = cert.valid_from ? new Date(cert.valid_from) : undefined;
  const now = Date.now();
  const isIp = /^[\d.]+$/.test(host) || host.includes(':');
  const names = sans.length > 0 ? sans : cn ? [cn] : [];
  return {
    host,
    ip,
    port,
    tls_version: NODE_TO_NUCLEI[socket.getProtocol() ?? ''] ?? String(socket.getProtocol() ?? ''),
    cipher: socket.getCipher()?.name ?? '',
    subject_cn: cn,
    subject_dn: dn(subject),
    subject_org: asList(subject?.O),
    subject_an: sans,
    issuer_cn: asList(issuer?.CN)[0] ?? '',
    issuer_dn: dn(issuer),
    issuer_org: asList(issuer?.O),
    not_before: notBefore ? notBefore.toISOString() : '',
    not_after: notAfter ? notAfter.toISOString() : '',
    expired:
      notAfter !== undefined &&
      (notAfter.getTime() < now || (notBefore !== undefined && notBefore.getTime() > now)),
    self_signed: selfSigned,
    mismatched: !isIp && !hostMatches(host, names),
    wildcard_certificate: names.some((n) => n.startsWith('*.')),
    serial: cert.serialNumber ?? '',
    fingerprint_sha256: (cert.fingerprint256 ?? '').replace(/:/g, '').toLowerCase(),
  };
}

export function tlsHandshake(
  host: string,
  ip: string,
  port: number,
  options: {
    minVersion?: SecureVersion;
    maxVersion?: SecureVersion;
    timeoutMs: number;
    signal?: AbortSignal;
  },
): Promise<TlsInfo> {
  return new Promise((resolve, reject) => {
    const isIp = /^[\d.]+$/.test(host) || host.includes(':');
    const socket = tls.connect({
      host: ip,
      port,
      rejectUnauthorized: false,
      ...(isIp ? {} : { servername: host }),
      ...(options.minVersion ? { minVersion: options.minVersion } : {}),
      ...(options.maxVersion ? { maxVersion: options.maxVersion } : {}),
      // Old protocol versions are refused by OpenSSL's default security level on our side.
      ...(options.minVersion && options.minVersion !== 'TLSv1.2' && options.minVersion !== 'TLSv1.3'
        ? { ciphers: 'DEFAULT:@SECLEVEL=0' }
        : {}),
    });
    const timer = setTimeout(
      () => finish(new Error(`tls timeout after ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    const onAbort = () => finish(new Error('aborted'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    let settled = false;
    function finish(err: Error | null, info?: TlsInfo): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      if (err) reject(err);
      else resolve(info as TlsInfo);
    }
    socket.on('secureConnect', () => finish(null, describeTls(host, ip, port, socket)));
    socket.on('error', (err) => finish(err));
  });
}

/** ssl: one handshake; parts are the tlsx fields plus `response` (all of them as JSON). */
export const sslExecutor: ProtocolExecutor = async function* (req, vars, ctx, state) {
  if (req.protocol !== 'ssl') return;
  const port = state.target.port ?? 443;
  const r = interpolate(req.address, { ...vars, Port: String(port), Host: state.target.hostname });
  if (r.unresolved.length > 0) return;
  const m = /^\[?([^\]]+?)\]?(?::(\d+))?$/.exec(r.text.trim());
  if (!m) return;
  const host = m[1] as string;
  const p = m[2] ? Number(m[2]) : port;
  const endpoint = `${host}:${p}`;
  // Skipped is not a "no": the template's earlier findings must keep their state.
  if (ctx.hosts.isBlocked(endpoint)) {
    state.errors.push(`ssl ${endpoint}: host skipped: error budget exhausted`);
    return;
  }
  const ip = ctx.resolve?.(host) ?? host;
  await ctx.rate.acquire(endpoint, ctx.signal);
  const release = await ctx.hosts.acquire(endpoint);
  let info: TlsInfo;
  try {
    info = await tlsHandshake(host, ip, p, {
      ...(req.minVersion ? { minVersion: TLS_VERSIONS[req.minVersion] as SecureVersion } : {}),
      ...(req.maxVersion ? { maxVersion: TLS_VERSIONS[req.maxVersion] as SecureVersion } : {}),
      timeoutMs: ctx.timeoutMs,
      signal: ctx.signal,
    });
  } catch (err) {
    // A refused protocol version is an answer (no match), not an error: the check ran.
    const msg = (err as Error).message;
    if (/version|protocol|handshake|alert/i.test(msg) && !/timeout/i.test(msg)) return;
    if (!ctx.signal.aborted) ctx.hosts.recordError(endpoint, msg);
    state.errors.push(`ssl ${endpoint}: ${msg}`);
    return;
  } finally {
    release();
  }
  const json = JSON.stringify(info);
  const values: Record<string, DslValue> = {
    ...(info as unknown as Record<string, DslValue>),
    response: json,
    raw: json,
    matched: endpoint,
  };
  yield {
    event: { values, defaultPart: 'response' },
    matchedAt: endpoint,
    endpoint,
    path: '',
    request: `TLS ClientHello to ${endpoint}${req.minVersion ? ` min ${req.minVersion}` : ''}${req.maxVersion ? ` max ${req.maxVersion}` : ''}`,
    response: json,
    curl: `openssl s_client -connect ${ip}:${p} -servername ${host}`,
  };
};
