/**
 * TLS audit of one endpoint, as sslscan and testssl.sh report it: each protocol version tried
 * on its own handshake, each class of weak cipher suites on its own, and the certificate's
 * problems. What the local OpenSSL cannot offer (SSL 3, EXPORT and RC4 suites in OpenSSL 3) is
 * reported as not tested, never as absent.
 */
import { X509Certificate } from 'node:crypto';
import tls, { type SecureVersion } from 'node:tls';
import { noAnswerCode } from '../lib/net-errors.ts';
import { connectGuarded } from '../scope/guarded-net.ts';
import type { ScopePolicy } from '../scope/scope-policy.ts';

export type TlsVersionName = 'SSLv3' | 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
export const TLS_VERSION_NAMES: TlsVersionName[] = ['SSLv3', 'TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'];

export interface WeakCipherClass {
  id: 'null' | 'export' | 'rc4' | '3des' | 'anon';
  name: string;
  /** OpenSSL cipher string selecting the class (TLS 1.2 and below). */
  openssl: string;
}

export const WEAK_CIPHER_CLASSES: WeakCipherClass[] = [
  { id: 'null', name: 'NULL (no encryption)', openssl: 'eNULL' },
  { id: 'export', name: 'EXPORT', openssl: 'EXP' },
  { id: 'rc4', name: 'RC4', openssl: 'RC4' },
  { id: '3des', name: '3DES (SWEET32)', openssl: '3DES' },
  { id: 'anon', name: 'anonymous (no authentication)', openssl: 'aNULL' },
];

/**
 * accepted / refused by the server, or untested because the local OpenSSL cannot offer it or the
 * handshake got no answer (`no answer: <code>`).
 */
export type TlsTestResult =
  | { status: 'accepted'; protocol: string; cipher: string }
  | { status: 'refused'; reason: string }
  | { status: 'untested'; reason: string };

export interface TlsCertificateFacts {
  subject: string;
  issuer: string;
  sans: string[];
  notBefore: string;
  notAfter: string;
  expired: boolean;
  notYetValid: boolean;
  selfSigned: boolean;
  /** The chain's verification error against the system roots (self-signed and dates aside). */
  untrustedReason?: string;
  /** Set when the name asked for is not among the certificate's names. */
  nameMismatch?: string;
  keyType: string;
  keyBits: number;
  weakKey: boolean;
  signatureAlgorithm: string;
  sha1Signature: boolean;
}

export interface TlsAudit {
  host: string;
  ip: string;
  port: number;
  protocols: Record<TlsVersionName, TlsTestResult>;
  weakCiphers: Record<WeakCipherClass['id'], TlsTestResult>;
  certificate?: TlsCertificateFacts;
  /**
   * The code of the first handshake that got no answer (timed out, refused or unreachable:
   * `noAnswerCode`): what it was to test is `untested` (or the certificate missing), and the audit
   * is incomplete.
   */
  noAnswer?: string;
}

export interface TlsAuditOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Whether the local OpenSSL can offer anything with this cipher string (and protocol). */
function locallyPossible(ciphers: string, version?: SecureVersion): boolean {
  try {
    tls.createSecureContext({
      ciphers,
      ...(version ? { minVersion: version, maxVersion: version } : {}),
    });
    return true;
  } catch {
    return false;
  }
}

interface HandshakeOptions {
  minVersion: SecureVersion;
  maxVersion: SecureVersion;
  ciphers: string;
}

/** One handshake (scope-checked TCP, then TLS over it); the socket is left open for inspection. */
async function handshake(
  policy: ScopePolicy,
  ip: string,
  port: number,
  servername: string | undefined,
  opts: HandshakeOptions,
  audit: TlsAuditOptions,
): Promise<tls.TLSSocket> {
  const timeoutMs = audit.timeoutMs ?? 5000;
  const raw = await connectGuarded(policy, { address: ip, port, timeoutMs, signal: audit.signal });
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      socket: raw,
      ...(servername ? { servername } : {}),
      rejectUnauthorized: false,
      minVersion: opts.minVersion,
      maxVersion: opts.maxVersion,
      ciphers: opts.ciphers,
    });
    const timer = setTimeout(
      () =>
        fail(
          Object.assign(new Error(`TLS handshake timed out after ${timeoutMs} ms`), { code: 'ETIMEDOUT' }),
        ),
      timeoutMs,
    );
    const fail = (e: Error) => {
      clearTimeout(timer);
      socket.destroy();
      raw.destroy();
      reject(e);
    };
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('error', fail);
  });
}

async function tryHandshake(
  policy: ScopePolicy,
  ip: string,
  port: number,
  servername: string | undefined,
  opts: HandshakeOptions,
  audit: TlsAuditOptions,
  unanswered: (code: string) => void,
): Promise<TlsTestResult> {
  try {
    const socket = await handshake(policy, ip, port, servername, opts, audit);
    const result: TlsTestResult = {
      status: 'accepted',
      protocol: socket.getProtocol() ?? '',
      cipher: socket.getCipher()?.standardName ?? socket.getCipher()?.name ?? '',
    };
    socket.destroy();
    return result;
  } catch (e) {
    if ((e as { code?: string }).code === 'scope_refused') throw e;
    // No answer is not a refusal: the version or suite was not tested.
    const code = noAnswerCode(e);
    if (code) {
      unanswered(code);
      return { status: 'untested', reason: `no answer: ${code}` };
    }
    return { status: 'refused', reason: (e as Error).message.split('\n')[0] ?? 'handshake failed' };
  }
}

// sha1WithRSAEncryption, md5WithRSAEncryption, ecdsa-with-SHA1, dsa-with-sha1 (DER of the OID).
const SIGNATURE_OIDS: [string, string][] = [
  ['06092a864886f70d010105', 'sha1WithRSAEncryption'],
  ['06092a864886f70d010104', 'md5WithRSAEncryption'],
  ['06072a8648ce3d0401', 'ecdsa-with-SHA1'],
  ['06072a8648ce380403', 'dsa-with-sha1'],
  ['06092a864886f70d01010b', 'sha256WithRSAEncryption'],
  ['06092a864886f70d01010c', 'sha384WithRSAEncryption'],
  ['06092a864886f70d01010d', 'sha512WithRSAEncryption'],
  ['06092a864886f70d01010a', 'rsassaPss'],
  ['06082a8648ce3d040302', 'ecdsa-with-SHA256'],
  ['06082a8648ce3d040303', 'ecdsa-with-SHA384'],
  ['06082a8648ce3d040304', 'ecdsa-with-SHA512'],
  ['06032b6570', 'ED25519'],
];

/** DER length at `i`: [length, offset of the content]. */
function derLength(der: Buffer, i: number): [number, number] {
  const b = der[i] as number;
  if (!(b & 0x80)) return [b, i + 1];
  let len = 0;
  for (let k = 1; k <= (b & 0x7f); k++) len = len * 256 + (der[i + k] as number);
  return [len, i + 1 + (b & 0x7f)];
}

/** The certificate's signatureAlgorithm (the one after tbsCertificate), by name. */
export function certificateSignatureAlgorithm(der: Buffer): string {
  try {
    const [, outer] = derLength(der, 1);
    const [tbsLen, tbsStart] = derLength(der, outer + 1);
    const alg = tbsStart + tbsLen;
    const [, oidStart] = derLength(der, alg + 1);
    const [oidLen, oidContent] = derLength(der, oidStart + 1);
    const oid = der.subarray(oidStart, oidContent + oidLen).toString('hex');
    return SIGNATURE_OIDS.find(([hex]) => hex === oid)?.[1] ?? `OID ${oid}`;
  } catch {
    return 'unknown';
  }
}

const SELF_SIGNED_ERRORS = new Set(['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN']);
const DATE_ERRORS = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']);

function certificateFacts(socket: tls.TLSSocket, name: string): TlsCertificateFacts | undefined {
  const peer = socket.getPeerCertificate(false);
  if (!peer?.raw) return undefined;
  const x = new X509Certificate(peer.raw);
  const now = Date.now();
  const notBefore = new Date(x.validFrom);
  const notAfter = new Date(x.validTo);
  const key = x.publicKey;
  const details = key.asymmetricKeyDetails ?? {};
  const keyType = key.asymmetricKeyType ?? 'unknown';
  const curveBits: Record<string, number> = { prime256v1: 256, secp384r1: 384, secp521r1: 521 };
  const keyBits = details.modulusLength ?? (details.namedCurve ? (curveBits[details.namedCurve] ?? 0) : 0);
  const weakKey =
    ((keyType === 'rsa' || keyType === 'rsa-pss' || keyType === 'dsa') && keyBits < 2048) ||
    (keyType === 'ec' && keyBits > 0 && keyBits < 224);
  const signatureAlgorithm = certificateSignatureAlgorithm(peer.raw);
  let selfSigned = false;
  try {
    selfSigned = x.checkIssued(x) && x.verify(x.publicKey);
  } catch {}
  const facts: TlsCertificateFacts = {
    subject: x.subject.replace(/\n/g, ', '),
    issuer: x.issuer.replace(/\n/g, ', '),
    sans: (x.subjectAltName ?? '').split(/,\s*/).filter(Boolean),
    notBefore: notBefore.toISOString(),
    notAfter: notAfter.toISOString(),
    expired: notAfter.getTime() < now,
    notYetValid: notBefore.getTime() > now,
    selfSigned,
    keyType,
    keyBits,
    weakKey,
    signatureAlgorithm,
    sha1Signature: /sha1|md5/i.test(signatureAlgorithm),
  };
  const verify = socket.authorizationError
    ? String((socket.authorizationError as { code?: string }).code ?? socket.authorizationError)
    : undefined;
  if (verify && !SELF_SIGNED_ERRORS.has(verify) && !DATE_ERRORS.has(verify)) facts.untrustedReason = verify;
  if (!verify && !socket.authorized) facts.untrustedReason = 'not verified';
  const mismatch = tls.checkServerIdentity(name, peer);
  if (mismatch) facts.nameMismatch = mismatch.message;
  return facts;
}

const VERSION_OPTIONS: Record<Exclude<TlsVersionName, 'SSLv3'>, SecureVersion> = {
  TLSv1: 'TLSv1',
  'TLSv1.1': 'TLSv1.1',
  'TLSv1.2': 'TLSv1.2',
  'TLSv1.3': 'TLSv1.3',
};

/**
 * Audits one TLS endpoint: `name` is the host name asked for (SNI and the name check); an IP
 * address when the endpoint has no name.
 */
export async function auditTls(
  policy: ScopePolicy,
  name: string,
  ip: string,
  port: number,
  options: TlsAuditOptions = {},
): Promise<TlsAudit> {
  const servername = /^[\d.]+$/.test(name) || name.includes(':') ? undefined : name;
  const protocols = {} as Record<TlsVersionName, TlsTestResult>;
  let firstUnanswered: string | undefined;
  const unanswered = (code: string) => {
    firstUnanswered ??= code;
  };
  // Node's OpenSSL has no SSL 3 method at all: sslscan built on the same library says the same.
  protocols.SSLv3 = { status: 'untested', reason: 'the local OpenSSL has no SSL 3.0 support' };
  for (const [label, version] of Object.entries(VERSION_OPTIONS) as [TlsVersionName, SecureVersion][]) {
    // @SECLEVEL=0 per handshake: OpenSSL's default level refuses TLS 1.0/1.1 and SHA-1 on our side.
    const ciphers = 'ALL:@SECLEVEL=0';
    if (!locallyPossible(ciphers, version)) {
      protocols[label] = { status: 'untested', reason: `the local OpenSSL cannot offer ${label}` };
      continue;
    }
    protocols[label] = await tryHandshake(
      policy,
      ip,
      port,
      servername,
      { minVersion: version, maxVersion: version, ciphers },
      options,
      unanswered,
    );
  }
  const weakCiphers = {} as Record<WeakCipherClass['id'], TlsTestResult>;
  for (const c of WEAK_CIPHER_CLASSES) {
    const ciphers = `${c.openssl}:@SECLEVEL=0`;
    if (!locallyPossible(ciphers)) {
      weakCiphers[c.id] = { status: 'untested', reason: `the local OpenSSL has no ${c.name} cipher suites` };
      continue;
    }
    // Cipher strings choose TLS 1.2 and older suites only: TLS 1.3 has none of these.
    weakCiphers[c.id] = await tryHandshake(
      policy,
      ip,
      port,
      servername,
      { minVersion: 'TLSv1', maxVersion: 'TLSv1.2', ciphers },
      options,
      unanswered,
    );
  }
  const audit: TlsAudit = { host: name, ip, port, protocols, weakCiphers };
  if (firstUnanswered) audit.noAnswer = firstUnanswered;
  try {
    const socket = await handshake(
      policy,
      ip,
      port,
      servername,
      { minVersion: 'TLSv1', maxVersion: 'TLSv1.3', ciphers: 'ALL:@SECLEVEL=0' },
      options,
    );
    const facts = certificateFacts(socket, name);
    if (facts) audit.certificate = facts;
    socket.destroy();
  } catch (e) {
    if ((e as { code?: string }).code === 'scope_refused') throw e;
    const code = noAnswerCode(e);
    if (code) audit.noAnswer ??= code;
  }
  return audit;
}
