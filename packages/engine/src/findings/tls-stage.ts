/**
 * TLS findings (exploit_scanner): each protocol version accepted on its own handshake, each
 * weak cipher class, each certificate problem, and HTTPS without HSTS, with the handshake or
 * the response as evidence. The certificate's dates, self-signature and name are the ssl
 * templates' (tls-expired-certificate, tls-self-signed-certificate, tls-mismatched-certificate):
 * this stage reports what they cannot see.
 */
import { mapConcurrent } from '../lib/async.ts';
import type { ScanEvent } from '../pipeline/events.ts';
import type { Stage, StageContext } from '../pipeline/stage.ts';
import { auditTls, type TlsAudit, type TlsTestResult, WEAK_CIPHER_CLASSES } from '../probe/tls-audit.ts';
import { findingFingerprint, hostNames } from './evidence.ts';
import { SEVERITY_ORDERING, type Severity, type TemplateFinding } from './types.ts';

interface TlsIssue {
  id: string;
  name: string;
  severity: Severity;
  description: string;
  remediation: string;
  cwe: string;
  request: string;
  response: string;
  curl: string;
}

const OPENSSL_FLAGS: Record<string, string> = {
  SSLv3: '-ssl3',
  TLSv1: '-tls1',
  'TLSv1.1': '-tls1_1',
  'TLSv1.2': '-tls1_2',
  'TLSv1.3': '-tls1_3',
};

const PROTOCOL_ISSUES: Record<string, { id: string; severity: Severity; why: string }> = {
  SSLv3: { id: 'tls-protocol-sslv3', severity: 'high', why: 'SSL 3.0 is broken (POODLE, RFC 7568).' },
  TLSv1: { id: 'tls-protocol-tls10', severity: 'low', why: 'TLS 1.0 is deprecated (RFC 8996).' },
  'TLSv1.1': { id: 'tls-protocol-tls11', severity: 'low', why: 'TLS 1.1 is deprecated (RFC 8996).' },
};

const CIPHER_SEVERITY: Record<string, Severity> = {
  null: 'high',
  export: 'high',
  anon: 'high',
  rc4: 'medium',
  '3des': 'low',
};

function accepted(r: TlsTestResult): r is Extract<TlsTestResult, { status: 'accepted' }> {
  return r.status === 'accepted';
}

/** The problems of one audited endpoint, each with the handshake that shows it. */
export function tlsIssues(a: TlsAudit): TlsIssue[] {
  const target = `${a.ip}:${a.port}`;
  const sni = /^[\d.:]+$/.test(a.host) ? '' : ` -servername ${a.host}`;
  const out: TlsIssue[] = [];
  for (const [version, issue] of Object.entries(PROTOCOL_ISSUES)) {
    const r = a.protocols[version as keyof TlsAudit['protocols']];
    if (!r || !accepted(r)) continue;
    out.push({
      id: issue.id,
      name: `TLS - ${version} accepted`,
      severity: issue.severity,
      description: `The server completes a handshake offering only ${version}. ${issue.why}`,
      remediation: 'Accept only TLS 1.2 and TLS 1.3.',
      cwe: 'CWE-327',
      request: `TLS ClientHello to ${target}: ${version} only, all cipher suites (@SECLEVEL=0)`,
      response: `accepted: ${r.protocol} ${r.cipher}`,
      curl: `openssl s_client -connect ${target}${sni} ${OPENSSL_FLAGS[version]} -cipher 'ALL:@SECLEVEL=0'`,
    });
  }
  for (const c of WEAK_CIPHER_CLASSES) {
    const r = a.weakCiphers[c.id];
    if (!r || !accepted(r)) continue;
    out.push({
      id: `tls-weak-cipher-${c.id}`,
      name: `TLS - ${c.name} cipher suites accepted`,
      severity: CIPHER_SEVERITY[c.id] ?? 'medium',
      description: `The server agrees to a ${c.name} cipher suite when the client offers nothing else.`,
      remediation:
        'Offer only AEAD cipher suites with forward secrecy (ECDHE with AES-GCM or ChaCha20-Poly1305).',
      cwe: 'CWE-327',
      request: `TLS ClientHello to ${target}: TLS 1.0-1.2, cipher suites '${c.openssl}' only`,
      response: `accepted: ${r.protocol} ${r.cipher}`,
      curl: `openssl s_client -connect ${target}${sni} -cipher '${c.openssl}:@SECLEVEL=0' -no_tls1_3`,
    });
  }
  const cert = a.certificate;
  if (cert) {
    const shown = `subject: ${cert.subject}\nissuer: ${cert.issuer}\nnot before: ${cert.notBefore}\nnot after: ${cert.notAfter}\nkey: ${cert.keyType} ${cert.keyBits} bits\nsignature: ${cert.signatureAlgorithm}`;
    const base = {
      request: `TLS ClientHello to ${target}${sni ? ` (SNI ${a.host})` : ''}`,
      response: shown,
      curl: `openssl s_client -connect ${target}${sni} -showcerts`,
    };
    if (cert.notYetValid)
      out.push({
        id: 'tls-certificate-not-yet-valid',
        name: 'TLS Certificate - Not Yet Valid',
        severity: 'medium',
        description: `The certificate is valid only from ${cert.notBefore}.`,
        remediation: 'Install a certificate whose validity period has begun (and check the server clock).',
        cwe: 'CWE-298',
        ...base,
      });
    if (cert.untrustedReason && !cert.selfSigned)
      out.push({
        id: 'tls-certificate-untrusted-chain',
        name: 'TLS Certificate - Untrusted Chain',
        severity: 'medium',
        description: `The chain does not verify against the system's trusted roots (${cert.untrustedReason}).`,
        remediation: 'Serve a certificate from a publicly trusted CA with its full intermediate chain.',
        cwe: 'CWE-295',
        ...base,
      });
    if (cert.weakKey)
      out.push({
        id: 'tls-certificate-weak-key',
        name: 'TLS Certificate - Weak Key',
        severity: 'medium',
        description: `The certificate's ${cert.keyType.toUpperCase()} key has ${cert.keyBits} bits (at least 2048 for RSA, 224 for EC).`,
        remediation: 'Issue a new certificate with an RSA key of 2048 bits or more, or an EC P-256 key.',
        cwe: 'CWE-326',
        ...base,
      });
    if (cert.sha1Signature)
      out.push({
        id: 'tls-certificate-sha1-signature',
        name: 'TLS Certificate - SHA-1 Signature',
        severity: 'low',
        description: `The certificate is signed with ${cert.signatureAlgorithm}, which collisions have broken.`,
        remediation: 'Reissue the certificate signed with SHA-256 or better.',
        cwe: 'CWE-328',
        ...base,
      });
  }
  return out;
}

/** HTTPS without Strict-Transport-Security, from the page the HTTP stage fetched. */
export function missingHstsIssue(
  url: string,
  status: number,
  headers: Record<string, string[]>,
): TlsIssue | null {
  if (!url.startsWith('https://') || headers['strict-transport-security']?.length) return null;
  const head = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v.join(', ')}`)
    .join('\n');
  return {
    id: 'http-missing-hsts',
    name: 'HTTPS - Missing Strict-Transport-Security',
    severity: 'low',
    description:
      'The HTTPS site sends no Strict-Transport-Security header, so browsers may be downgraded to HTTP.',
    remediation:
      'Send `Strict-Transport-Security: max-age=31536000; includeSubDomains` on every HTTPS response.',
    cwe: 'CWE-319',
    request: `GET ${url}`,
    response: `HTTP ${status}\n${head}`,
    curl: `curl -skI '${url}'`,
  };
}

export function tlsFinding(issue: TlsIssue, host: string, matchedAt: string): TemplateFinding {
  const names = hostNames(host);
  return {
    subclass: 'exploit_scanner',
    fingerprint: findingFingerprint(issue.id, undefined, matchedAt, ''),
    templateId: issue.id,
    name: issue.name,
    severity: issue.severity,
    severityOrdering: SEVERITY_ORDERING[issue.severity],
    host: names.host,
    mainDomain: names.mainDomain,
    subdomain: names.subdomain,
    matchedAt,
    extracted: [],
    description: issue.description,
    remediation: issue.remediation,
    references: ['https://ssl-config.mozilla.org/', 'https://www.rfc-editor.org/rfc/rfc8996'],
    tags: ['ssl', 'tls'],
    classification: { cweId: [issue.cwe] },
    evidence: { request: issue.request, response: issue.response, curl: issue.curl },
  };
}

/** Every TLS service of the inventory (by name where an HTTPS endpoint has one), and HSTS per HTTPS page. */
export function createTlsStage(
  options: { timeoutMs?: number; concurrency?: number; progress?: boolean } = {},
): Stage {
  return {
    name: 'tls',
    class: 'class_exploitation',
    subclass: 'exploit_scanner',
    async *run(ctx: StageContext): AsyncIterable<ScanEvent> {
      const inv = ctx.inventory;
      const targets = new Map<string, { name: string; ip: string; port: number }>();
      for (const e of inv.endpoints.values())
        if (e.scheme === 'https')
          targets.set(`${e.host}|${e.ip}:${e.port}`, { name: e.host, ip: e.ip, port: e.port });
      for (const s of inv.services.values()) {
        if (!s.tls) continue;
        const named = [...targets.values()].some((t) => t.ip === s.ip && t.port === s.port);
        if (!named) targets.set(`${s.ip}|${s.ip}:${s.port}`, { name: s.ip, ip: s.ip, port: s.port });
      }
      const list = [...targets.values()].sort((a, b) =>
        `${a.name}:${a.port}`.localeCompare(`${b.name}:${b.port}`),
      );
      const audits = mapConcurrent(
        list,
        options.concurrency ?? 4,
        async (t) => {
          try {
            return await auditTls(ctx.policy, t.name, t.ip, t.port, {
              timeoutMs: options.timeoutMs ?? 5000,
              signal: ctx.signal,
            });
          } catch (e) {
            return e as Error;
          }
        },
        ctx.signal,
      );
      let done = 0;
      // A service that gave a handshake no answer was not (wholly) audited: skipped, the scan is
      // partial; what the answered handshakes showed is still reported.
      ctx.report.plan(list.length);
      for await (const a of audits) {
        done++;
        if (options.progress !== false) yield { type: 'progress', stage: 'tls', done, total: list.length };
        if (a instanceof Error) {
          ctx.report.done(); // refused by the scope policy: decided, not unanswered
          continue;
        }
        if (a.noAnswer) ctx.report.skip(`no answer: ${a.noAnswer}`, 1, `${a.host}:${a.port}`);
        else ctx.report.done();
        for (const issue of tlsIssues(a))
          yield { type: 'finding', finding: tlsFinding(issue, a.host, `${a.host}:${a.port}`) };
      }
      for (const e of [...inv.endpoints.values()].sort((x, y) => x.url.localeCompare(y.url))) {
        const issue = missingHstsIssue(e.url, e.result.final.status, e.result.final.headers);
        if (issue) yield { type: 'finding', finding: tlsFinding(issue, e.host, e.url) };
      }
    },
  };
}
