export { LAB_CVE_FEED_PATH, LAB_CVES, labCveFeed } from './cve-feed.ts';
export type { ExpectedFinding, ExpectedLab, ExpectedScanFinding, LeakRecord } from './expected.ts';
export { loadExpected, remapExpected } from './expected.ts';
export {
  DEFAULT_DNS_HOST,
  DEFAULT_DNS_PORT,
  DEFAULT_SUBNET,
  FALLBACK_PORTS,
  LAB_DOMAINS,
  LAB_HOSTS,
  LAB_ZONES,
} from './lab-definition.ts';
export type { OobLabHost, OobPlantedIssue } from './oob-planted.ts';
export { OOB_LAB_HOSTS, OOB_PLANTED } from './oob-planted.ts';
export type { LabOobOptions } from './oob-services.ts';
export type { PlantedIssue } from './planted.ts';
export { PLANTED, PLANTED_IDS, REMOVABLE_PLANTED_IDS } from './planted.ts';
export type { RealDaemon, RealPort } from './real-software/daemon-kit.ts';
export { REAL_DAEMONS } from './real-software/daemons.ts';
export type { ExpectedRealService, RealLab, RealLabOptions } from './real-software/start-real-lab.ts';
export { missingRealPackages, REAL_LAB_SUBNET, startRealLab } from './real-software/start-real-lab.ts';
export type { Lab, RunningService, StartLabOptions } from './start-lab.ts';
export { startLab } from './start-lab.ts';
export { BANNERS } from './tcp-services.ts';
