import type tls from 'node:tls';
import { connectGuarded } from '../scope/guarded-net.ts';
import type { ScopePolicy } from '../scope/scope-policy.ts';

export interface TlsCertificateInfo {
  subject: string;
  issuer: string;
  sans: string[];
  validFrom: string;
  validTo: string;
  expired: boolean;
  notYetValid: boolean;
  selfSigned: boolean;
  serialNumber: string;
  fingerprintSha256: string;
  protocol: string | null;
  cipher: string | null;
  /** Whether the chain verifies against the system roots for the name. */
  trusted: boolean;
  verifyError?: string;
}

function dn(o: Record<string, string | string[]> | undefined): string {
  if (!o) return '';
  return Object.entries(o)
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('+') : v}`)
    .join(', ');
}

export function parseSans(altNames: string | undefined): string[] {
  if (!altNames) return [];
  return altNames
    .split(/,\s*/)
    .filter((s) => s.startsWith('DNS:'))
    .map((s) => s.slice(4).toLowerCase());
}

/** Connects once with TLS (scope-checked) and reads the peer certificate and session. */
export async function fetchTlsInfo(
  policy: ScopePolicy,
  address: string,
  port: number,
  servername: string | undefined,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<TlsCertificateInfo> {
  const socket = (await connectGuarded(policy, {
    address,
    port,
    timeoutMs,
    signal,
    tls: servername ? { servername } : {},
  })) as tls.TLSSocket;
  try {
    const cert = socket.getPeerCertificate(false);
    const now = Date.now();
    const validFrom = new Date(cert.valid_from);
    const validTo = new Date(cert.valid_to);
    const subject = dn(cert.subject as unknown as Record<string, string>);
    const issuer = dn(cert.issuer as unknown as Record<string, string>);
    const cipher = socket.getCipher();
    const info: TlsCertificateInfo = {
      subject,
      issuer,
      sans: parseSans(cert.subjectaltname),
      validFrom: validFrom.toISOString(),
      validTo: validTo.toISOString(),
      expired: validTo.getTime() < now,
      notYetValid: validFrom.getTime() > now,
      selfSigned: subject === issuer,
      serialNumber: cert.serialNumber,
      fingerprintSha256: cert.fingerprint256,
      protocol: socket.getProtocol(),
      cipher: cipher?.name ?? null,
      trusted: socket.authorized,
    };
    if (socket.authorizationError) info.verifyError = String(socket.authorizationError);
    return info;
  } finally {
    socket.destroy();
  }
}
