import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { missingHstsIssue, tlsIssues } from '../src/findings/tls-stage.ts';
import { auditTls, certificateSignatureAlgorithm } from '../src/probe/tls-audit.ts';
import { ScopePolicy } from '../src/scope/scope-policy.ts';

// Loopback TLS servers configured for each case, on 127.0.226.x; certificates made here with
// the openssl command (Debian's openssl package, installed in CI).
const policy = new ScopePolicy({ allowPrivate: true, allow: ['127.0.226.0/24'] });
let dir: string;
const servers: tls.Server[] = [];

interface Pem {
  key: string;
  cert: string;
}

function openssl(args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}

function selfSigned(name: string, bits: number, digest: string, days = 30): Pem {
  openssl([
    'req',
    '-x509',
    '-newkey',
    `rsa:${bits}`,
    `-${digest}`,
    '-nodes',
    '-days',
    String(days),
    '-subj',
    `/CN=${name}`,
    '-addext',
    `subjectAltName=DNS:${name}`,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
  ]);
  return {
    key: readFileSync(path.join(dir, `${name}.key`), 'utf8'),
    cert: readFileSync(path.join(dir, `${name}.crt`), 'utf8'),
  };
}

/** A leaf signed by a CA of ours (so not self-signed, but no trusted root), with chosen dates. */
function caSigned(name: string, startDate?: string, endDate?: string): Pem {
  if (!existsSync(path.join(dir, 'ca.crt')))
    openssl([
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '30',
      '-subj',
      '/CN=Perimeter Test CA',
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
    ]);
  openssl([
    'req',
    '-new',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    `/CN=${name}`,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
  ]);
  writeFileSync(
    path.join(dir, 'ca.cnf'),
    `[ca]\ndefault_ca=test\n[test]\ndir=${dir}\ndatabase=${dir}/index.txt\nnew_certs_dir=${dir}\nserial=${dir}/serial\ndefault_md=sha256\npolicy=any\ncopy_extensions=none\n[any]\ncommonName=supplied\n`,
  );
  writeFileSync(path.join(dir, 'index.txt'), '');
  writeFileSync(path.join(dir, 'serial'), '01\n');
  openssl([
    'ca',
    '-batch',
    '-config',
    'ca.cnf',
    '-cert',
    'ca.crt',
    '-keyfile',
    'ca.key',
    '-in',
    `${name}.csr`,
    '-out',
    `${name}.crt`,
    '-notext',
    ...(startDate ? ['-startdate', startDate] : []),
    ...(endDate ? ['-enddate', endDate] : ['-days', '30']),
  ]);
  return {
    key: readFileSync(path.join(dir, `${name}.key`), 'utf8'),
    cert: readFileSync(path.join(dir, `${name}.crt`), 'utf8'),
  };
}

async function serve(octet: number, options: tls.TlsOptions): Promise<string> {
  const server = tls.createServer(options, (s) => s.end());
  server.on('tlsClientError', () => {});
  await new Promise<void>((r) => server.listen(4433, `127.0.226.${octet}`, r));
  servers.push(server);
  return `127.0.226.${octet}`;
}

let good: Pem;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'perimeter-tls-audit-'));
  good = selfSigned('good.test', 2048, 'sha256');
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const ids = (a: Awaited<ReturnType<typeof auditTls>>) =>
  tlsIssues(a)
    .map((i) => i.id)
    .sort();

describe('TLS audit: protocol versions, each on its own handshake', () => {
  it('a server allowing TLS 1.0-1.1 (and 1.2) is reported for 1.0 and for 1.1', async () => {
    const ip = await serve(10, {
      ...good,
      minVersion: 'TLSv1',
      maxVersion: 'TLSv1.2',
      ciphers: 'DEFAULT:@SECLEVEL=0',
    });
    const a = await auditTls(policy, 'good.test', ip, 4433);
    expect(a.protocols.TLSv1).toMatchObject({ status: 'accepted', protocol: 'TLSv1' });
    expect(a.protocols['TLSv1.1']).toMatchObject({ status: 'accepted', protocol: 'TLSv1.1' });
    expect(a.protocols['TLSv1.2']).toMatchObject({ status: 'accepted' });
    expect(a.protocols['TLSv1.3'].status).toBe('refused');
    expect(a.protocols.SSLv3.status).toBe('untested');
    expect(ids(a)).toEqual(['tls-protocol-tls10', 'tls-protocol-tls11']);
    const issue = tlsIssues(a).find((i) => i.id === 'tls-protocol-tls10');
    expect(issue?.response).toMatch(/^accepted: TLSv1 /);
    expect(issue?.curl).toContain('-tls1 ');
  });

  it('a modern server (TLS 1.2-1.3, strong suites, good certificate) has nothing to report but its own CA', async () => {
    const ip = await serve(11, { ...good, minVersion: 'TLSv1.2' });
    const a = await auditTls(policy, 'good.test', ip, 4433);
    expect(a.protocols.TLSv1.status).toBe('refused');
    expect(a.protocols['TLSv1.3'].status).toBe('accepted');
    // Self-signed: the ssl template reports that; no other problem here.
    expect(a.certificate?.selfSigned).toBe(true);
    expect(ids(a)).toEqual([]);
  });
});

describe('TLS audit: weak cipher suites', () => {
  it('NULL and anonymous suites, each found on its own handshake', async () => {
    const nul = await serve(20, { ...good, maxVersion: 'TLSv1.2', ciphers: 'eNULL:@SECLEVEL=0' });
    const a = await auditTls(policy, 'good.test', nul, 4433);
    expect(a.weakCiphers.null).toMatchObject({ status: 'accepted' });
    expect(ids(a)).toContain('tls-weak-cipher-null');
    const anon = await serve(21, { ...good, maxVersion: 'TLSv1.2', ciphers: 'aNULL:@SECLEVEL=0' });
    const b = await auditTls(policy, 'good.test', anon, 4433);
    expect(b.weakCiphers.anon).toMatchObject({ status: 'accepted' });
    expect(ids(b)).toContain('tls-weak-cipher-anon');
    // What the local OpenSSL cannot offer is untested, not "absent".
    for (const c of ['export', 'rc4'] as const)
      expect(['untested', 'refused']).toContain(a.weakCiphers[c].status);
  });
});

describe('TLS audit: certificate problems', () => {
  it('weak key and SHA-1 signature', async () => {
    const weak = selfSigned('weak.test', 1024, 'sha1');
    const ip = await serve(30, { ...weak, ciphers: 'DEFAULT:@SECLEVEL=0' });
    const a = await auditTls(policy, 'weak.test', ip, 4433);
    expect(a.certificate).toMatchObject({
      keyBits: 1024,
      weakKey: true,
      signatureAlgorithm: 'sha1WithRSAEncryption',
    });
    expect(ids(a)).toEqual(['tls-certificate-sha1-signature', 'tls-certificate-weak-key']);
  });

  it('untrusted chain, name mismatch, not yet valid, expired', async () => {
    const leaf = caSigned('leaf.test');
    const ip = await serve(31, leaf);
    const a = await auditTls(policy, 'other.test', ip, 4433);
    expect(a.certificate?.selfSigned).toBe(false);
    expect(a.certificate?.untrustedReason).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    expect(a.certificate?.nameMismatch).toMatch(/other\.test/);
    expect(ids(a)).toEqual(['tls-certificate-untrusted-chain']);

    const future = caSigned('future.test', '20990101000000Z', '21000101000000Z');
    const f = await auditTls(policy, 'future.test', await serve(32, future), 4433);
    expect(f.certificate?.notYetValid).toBe(true);
    expect(ids(f)).toContain('tls-certificate-not-yet-valid');

    const old = caSigned('old.test', '20200101000000Z', '20210101000000Z');
    const o = await auditTls(policy, 'old.test', await serve(33, old), 4433);
    expect(o.certificate?.expired).toBe(true);
  });

  it('reads the signature algorithm from the DER', () => {
    const der = new X509Certificate(good.cert).raw;
    expect(certificateSignatureAlgorithm(der)).toBe('sha256WithRSAEncryption');
  });
});

describe('TLS audit: a service that gives no answer', () => {
  it('says no answer when the handshakes are never answered, and not when the service is not TLS', async () => {
    const held: net.Socket[] = [];
    const silent = net.createServer((socket) => {
      held.push(socket);
      socket.on('error', () => {});
    });
    const plain = net.createServer((socket) => {
      socket.on('error', () => {});
      socket.end('SSH-2.0-OpenSSH_9.2\r\n');
    });
    await new Promise<void>((r) => silent.listen(4433, '127.0.226.40', r));
    await new Promise<void>((r) => plain.listen(4433, '127.0.226.41', r));
    try {
      // The TLS stage skips such a service (the scan is partial) …
      const silentAudit = await auditTls(policy, 'silent.test', '127.0.226.40', 4433, { timeoutMs: 300 });
      expect(silentAudit.noAnswer).toBe('ETIMEDOUT');
      expect(silentAudit.protocols['TLSv1.2']).toEqual({
        status: 'untested',
        reason: 'no answer: ETIMEDOUT',
      });
      expect(silentAudit.certificate).toBeUndefined();
      // … and counts one that answered, though not in TLS, as audited: its handshakes were refused.
      const plainAudit = await auditTls(policy, 'plain.test', '127.0.226.41', 4433, { timeoutMs: 300 });
      expect(plainAudit.noAnswer).toBeUndefined();
      expect(plainAudit.protocols['TLSv1.2']?.status).toBe('refused');
    } finally {
      for (const socket of held) socket.destroy();
      silent.close();
      plain.close();
    }
  });
});

describe('HSTS', () => {
  it('is missing on an HTTPS page without Strict-Transport-Security, and not asked of HTTP', () => {
    const issue = missingHstsIssue('https://www.acme.test/', 200, { server: ['nginx'] });
    expect(issue).toMatchObject({ id: 'http-missing-hsts', response: 'HTTP 200\nserver: nginx' });
    expect(
      missingHstsIssue('https://www.acme.test/', 200, { 'strict-transport-security': ['max-age=63072000'] }),
    ).toBeNull();
    expect(missingHstsIssue('http://www.acme.test/', 200, {})).toBeNull();
  });
});
