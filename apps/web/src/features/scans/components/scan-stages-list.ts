import { SCAN_SUBCLASS_VALUES, type TScan, type TScanSubclass } from '@perimeter/contracts';
import type { TFunction } from 'i18next';

/** The engine's stages in order (server: scans-fns stageList): discovery, then one per subclass. */
export const DISCOVERY_STAGES = ['subdomains', 'dns', 'ports', 'http', 'fingerprint'] as const;
export const SUBCLASS_STAGE: Record<TScanSubclass, string> = {
  exploit_scanner: 'templates',
  exploit_db: 'cve-matching',
  leakcheck: 'leaks',
};
const KNOWN_STAGES: readonly string[] = [...DISCOVERY_STAGES, ...Object.values(SUBCLASS_STAGE)];

export function stagesOf(scan: Pick<TScan, 'config'>, current: string | null): string[] {
  const list: string[] = [
    ...DISCOVERY_STAGES,
    ...SCAN_SUBCLASS_VALUES.filter((s) => scan.config.subclasses.includes(s)).map((s) => SUBCLASS_STAGE[s]),
  ];
  if (current && !list.includes(current)) list.push(current);
  return list;
}

/** A stage's name in the user's language; an unknown stage keeps the engine's word. */
export function stageLabel(t: TFunction, stage: string): string {
  return KNOWN_STAGES.includes(stage) ? t(`scans.stages.${stage}`) : stage;
}
