import { readFileSync } from 'node:fs';
import type { Db } from '../../db/client.ts';
import type { TEnv } from '../../lib/config/index.ts';
import type { Logger } from '../../lib/logger.ts';
import { startDns } from './oob-dns.ts';
import { startHttp } from './oob-http.ts';
import { startLdap } from './oob-ldap.ts';
import type { Listener } from './oob-net.ts';
import { Recorder } from './oob-recorder.ts';
import { startSmtp } from './oob-smtp.ts';

export interface OobServer {
  listeners: Listener[];
  recorder: Recorder;
  close(): Promise<void>;
}

/** Which listeners the configuration asks for (https only with a certificate). */
export function oobListeners(env: TEnv): Set<string> {
  const asked = new Set(env.PERIMETER_OOB_LISTENERS.split(',').map((s) => s.trim()));
  if (!env.PERIMETER_OOB_TLS_CERT || !env.PERIMETER_OOB_TLS_KEY) asked.delete('https');
  return asked;
}

/**
 * The interaction server (docs/oob.md): the configured listeners for PERIMETER_OOB_DOMAIN, all
 * writing through one Recorder. Throws when the domain is unset or a port cannot be bound (the
 * listeners already started are closed first).
 */
export async function startOobServer(deps: { db: Db; logger: Logger; env: TEnv }): Promise<OobServer> {
  const { env, logger } = deps;
  const domain = env.PERIMETER_OOB_DOMAIN;
  if (!domain || !env.PERIMETER_OOB_IP)
    throw new Error('PERIMETER_OOB_DOMAIN and PERIMETER_OOB_IP must be set');
  const recorder = new Recorder({
    db: deps.db,
    logger,
    maxPerCorrelation: env.PERIMETER_OOB_MAX_PER_SCAN,
    ratePerAddress: env.PERIMETER_OOB_RATE_PER_ADDRESS,
  });
  const host = env.PERIMETER_OOB_HOST;
  const asked = oobListeners(env);
  const listeners: Listener[] = [];
  const close = async () => {
    for (const l of listeners.splice(0)) await l.close().catch(() => {});
    await recorder.close();
  };
  try {
    if (asked.has('dns'))
      listeners.push(
        ...(await startDns(
          host,
          env.PERIMETER_OOB_DNS_PORT,
          {
            domain,
            ipv4: env.PERIMETER_OOB_IP,
            ...(env.PERIMETER_OOB_IPV6 ? { ipv6: env.PERIMETER_OOB_IPV6 } : {}),
          },
          recorder,
        )),
      );
    if (asked.has('http'))
      listeners.push(await startHttp(host, env.PERIMETER_OOB_HTTP_PORT, domain, recorder));
    if (asked.has('https') && env.PERIMETER_OOB_TLS_CERT && env.PERIMETER_OOB_TLS_KEY)
      listeners.push(
        await startHttp(host, env.PERIMETER_OOB_HTTPS_PORT, domain, recorder, {
          cert: readFileSync(env.PERIMETER_OOB_TLS_CERT),
          key: readFileSync(env.PERIMETER_OOB_TLS_KEY),
        }),
      );
    if (asked.has('ldap')) listeners.push(await startLdap(host, env.PERIMETER_OOB_LDAP_PORT, recorder));
    if (asked.has('smtp'))
      listeners.push(await startSmtp(host, env.PERIMETER_OOB_SMTP_PORT, domain, recorder));
  } catch (err) {
    await close();
    const code = (err as { code?: string }).code;
    if (code === 'EACCES' || code === 'EADDRINUSE' || code === 'EADDRNOTAVAIL')
      throw new Error(
        `out-of-band interaction server: cannot listen on ${host} (${code}: ${(err as Error).message}); ports below 1024 need the capability to bind them, see docs/oob.md "Ports and listeners"`,
      );
    throw err;
  }
  logger.info(
    { domain, listeners: listeners.map((l) => `${l.protocol} ${l.address.address}:${l.address.port}`) },
    'out-of-band interaction server listening',
  );
  return { listeners, recorder, close };
}
