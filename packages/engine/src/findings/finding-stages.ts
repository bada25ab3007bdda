import { createLeakStage } from '../leaks/leak-stage.ts';
import type { LeakSource } from '../leaks/leak-types.ts';
import type { Stage } from '../pipeline/stage.ts';
import { createTemplateStage, type TemplateStageConfig } from '../templates/template-stage.ts';
import { createCveStage } from '../vulndb/cve-stage.ts';
import type { NpmRegistry } from '../vulndb/npm-registry.ts';
import { importFeedFile } from '../vulndb/vuln-importers.ts';
import { MemoryVulnStore, type VulnStore } from '../vulndb/vuln-store.ts';
import { createTlsStage } from './tls-stage.ts';

export interface FindingStagesConfig {
  /** exploit_scanner: the built-in pack plus extra template directories. */
  templates?: TemplateStageConfig;
  /** exploit_db: a store, or feed files (NVD 1.1, NVD 2.0, retire.js; JSON or .gz) loaded into memory. */
  vulndb?: { store?: VulnStore; feedFiles?: string[]; npm?: NpmRegistry };
  /** leakcheck: the sources to ask (the local index first). */
  leaks?: { sources: LeakSource[] };
  /** exploit_scanner: the TLS audit (protocol versions, weak ciphers, certificate, HSTS). */
  tls?: { timeoutMs?: number; concurrency?: number };
}

/**
 * The TLS audit runs inside the exploit_scanner stage, after the templates: one stage per
 * subclass, as the server and the web app list them.
 */
function withTlsAudit(templates: Stage, tls: Stage): Stage {
  return {
    ...templates,
    async *run(ctx) {
      yield* templates.run(ctx);
      if (!ctx.signal.aborted) yield* tls.run(ctx);
    },
  };
}

/**
 * The finding-family stages for `ScanConfig.extraStages`: templates and the TLS audit
 * (exploit_scanner), CVE matching (exploit_db) and leak lookup (leakcheck). A family without configuration
 * still runs with its defaults (built-in templates; an empty CVE store; no leak sources).
 */
export function createFindingStages(config: FindingStagesConfig = {}): Stage[] {
  let storePromise: Promise<VulnStore> | undefined;
  const loadStore = (): Promise<VulnStore> => {
    if (!storePromise) {
      storePromise = (async () => {
        if (config.vulndb?.store) return config.vulndb.store;
        const store = new MemoryVulnStore();
        for (const file of config.vulndb?.feedFiles ?? []) await store.add(await importFeedFile(file));
        return store;
      })();
    }
    return storePromise;
  };
  return [
    withTlsAudit(
      createTemplateStage(config.templates ?? {}),
      createTlsStage({ ...config.tls, progress: false }),
    ),
    createCveStage(async () => ({
      store: await loadStore(),
      ...(config.vulndb?.npm ? { npm: config.vulndb.npm } : {}),
    })),
    createLeakStage({ sources: config.leaks?.sources ?? [] }),
  ];
}
