import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TEnv } from './env.ts';

export interface Secrets {
  encryptionKey: Buffer;
  jwtSecret: Uint8Array;
}

interface StoredSecrets {
  encryptionKey: string;
  jwtSecret: string;
}

/**
 * Secrets come from the environment; where one is unset (the embedded default), it is generated
 * once into `<data dir>/secrets.json` with 0600 permissions. Several machines sharing one
 * database must set both variables to the same values.
 */
export function resolveSecrets(env: TEnv, dataDir: string): Secrets {
  let stored: StoredSecrets | undefined;
  if (!env.PERIMETER_ENCRYPTION_KEY || !env.JWT_SECRET) stored = readOrCreate(dataDir);
  return {
    encryptionKey: Buffer.from(env.PERIMETER_ENCRYPTION_KEY ?? stored!.encryptionKey, 'base64'),
    jwtSecret: new TextEncoder().encode(env.JWT_SECRET ?? stored!.jwtSecret),
  };
}

function readOrCreate(dataDir: string): StoredSecrets {
  const file = path.join(dataDir, 'secrets.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as StoredSecrets;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secrets: StoredSecrets = {
    encryptionKey: randomBytes(32).toString('base64'),
    jwtSecret: randomBytes(48).toString('base64url'),
  };
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return secrets;
}
