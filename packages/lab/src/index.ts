export { LAB_CVE_FEED_PATH, LAB_CVES, labCveFeed } from './cve-feed.js';
export type { ExpectedFinding, ExpectedLab, ExpectedScanFinding, LeakRecord } from './expected.js';
export { loadExpected, remapExpected } from './expected.js';
export {
  DEFAULT_DNS_HOST,
  DEFAULT_DNS_PORT,
  DEFAULT_SUBNET,
  FALLBACK_PORTS,
  LAB_DOMAINS,
  LAB_HOSTS,
  LAB_ZONES,
} from './lab-definition.js';
export type { OobLabHost, OobPlantedIssue } from './oob-planted.js';
export { OOB_LAB_HOSTS, OOB_PLANTED } from './oob-planted.js';
export type { LabOobOptions } from './oob-services.js';
export type { PlantedIssue } from './planted.js';
export { PLANTED, PLANTED_IDS, REMOVABLE_PLANTED_IDS } from './planted.js';
export type { RealDaemon, RealPort } from './real-software/daemons.js';
export { REAL_DAEMONS } from './real-software/daemons.js';
export type { ExpectedRealService, RealLab, RealLabOptions } from './real-software/start-real-lab.js';
export { missingRealPackages, REAL_LAB_SUBNET, startRealLab } from './real-software/start-real-lab.js';
export type { Lab, RunningService, StartLabOptions } from './start-lab.js';
export { startLab } from './start-lab.js';
export { BANNERS } from './tcp-services.js';
