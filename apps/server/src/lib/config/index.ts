import path from 'node:path';
import { loadEnv, type TEnv } from './env.ts';
import { resolveSecrets, type Secrets } from './secrets.ts';

export interface AppConfig {
  env: TEnv;
  dataDir: string;
  secrets: Secrets;
  publicUrl: string;
}

export function loadConfig(source: NodeJS.ProcessEnv = process.env): AppConfig {
  const env = loadEnv(source);
  const dataDir = path.resolve(env.PERIMETER_DATA_DIR);
  return {
    env,
    dataDir,
    secrets: resolveSecrets(env, dataDir),
    publicUrl: (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, ''),
  };
}

export { ConfigError, loadEnv, type TEnv, ZEnv } from './env.ts';
