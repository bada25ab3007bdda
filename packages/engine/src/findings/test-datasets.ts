import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root (…/packages/engine/src/findings → four levels up). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
export const DATASETS = path.resolve(REPO_ROOT, '../shared/datasets');

/**
 * A shared dataset folder for tests, or undefined when absent (the test then skips with a
 * message); in CI (`CI=true`) absence is an error.
 */
export function datasetPath(...parts: string[]): string | undefined {
  const p = path.join(DATASETS, ...parts);
  if (existsSync(p)) return p;
  if (process.env.CI === 'true') throw new Error(`dataset missing in CI: ${p}`);
  console.warn(`dataset not found, skipping: ${p}`);
  return undefined;
}
