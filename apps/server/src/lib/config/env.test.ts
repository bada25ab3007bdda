import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadEnv, ZEnv } from './env.ts';

describe('configuration', () => {
  it('documents every variable in .env.example', () => {
    const example = readFileSync(path.resolve(import.meta.dirname, '../../../../../.env.example'), 'utf8');
    const documented = new Set([...example.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]));
    const missing = Object.keys(ZEnv.shape).filter((key) => !documented.has(key));
    expect(missing).toEqual([]);
  });

  it('starts with nothing set', () => {
    const env = loadEnv({});
    expect(env).toMatchObject({
      PORT: 8080,
      PERIMETER_DATA_DIR: './data',
      PERIMETER_ALLOW_PRIVATE_TARGETS: false,
    });
  });

  it('lists every bad value at once', () => {
    try {
      loadEnv({
        PORT: 'eighty',
        DATABASE_URL: 'mysql://x',
        JWT_SECRET: 'short',
        MAINTENANCE_MODE: 'perhaps',
      });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems.join('\n');
      for (const key of ['PORT', 'DATABASE_URL', 'JWT_SECRET', 'MAINTENANCE_MODE'])
        expect(problems).toContain(key);
    }
  });
});
