// ── Discovery engine (class_resources): targets, scope, DNS, subdomains, ports, HTTP probe,
//    fingerprints and the scan pipeline.
export { fetchCtNames } from './discovery/certificate-transparency.js';
export { detectWildcard, isWildcardAnswer, type WildcardInfo } from './discovery/wildcard.js';
export { BUILTIN_WORDLIST_PATH, builtinWordlist, loadWordlist, parseWordlist } from './discovery/wordlist.js';
export { attemptZoneTransfer } from './discovery/zone-transfer.js';
export {
  DnsError,
  DnsResolver,
  type DnsResponse,
  type DnsServer,
  type HostResolution,
  parseServer,
  type ResolverOptions,
  txtValues,
} from './dns/dns-resolver.js';
// ── Finding families (engine II): templates (exploit_scanner), CVE matching (exploit_db),
//    leaked credentials (leakcheck) and their pipeline stages.
export * from './findings/index.js';
// ── Finding types shared by the finding families.
export type * from './findings/types.js';
export {
  type DetectedTechnology,
  FingerprintEngine,
  type FingerprintInput,
} from './fingerprint/fingerprint-engine.js';
export {
  BUILTIN_FINGERPRINTS_DIR,
  type FingerprintSet,
  loadFingerprints,
} from './fingerprint/fingerprint-loader.js';
export type * from './pipeline/events.js';
export { type HttpEndpoint, Inventory } from './pipeline/inventory.js';
export { partialText, resourceStages, type ScanOptions, scan, selectStages } from './pipeline/scan.js';
export {
  SCAN_CLASSES,
  SCAN_SUBCLASSES,
  type ScanClass,
  type ScanConfig,
  type ScanSubclass,
  SUBCLASS_CLASS,
} from './pipeline/scan-config.js';
export type { Stage, StageContext } from './pipeline/stage.js';
export { ScanCoverage, StageReport } from './pipeline/stage-report.js';
export { scanTcpPorts } from './ports/connect-scanner.js';
export { isNmapAvailable, parseNmapXml, runNmap } from './ports/nmap-adapter.js';
export { parsePorts, TOP_100_PORTS, TOP_1000_PORTS } from './ports/port-lists.js';
export { identifyService, type ServiceInfo } from './ports/service-probes.js';
export { recogniseBanner, recogniseServerHeader } from './ports/service-recognition.js';
export { type HttpProbeResult, HttpProber } from './probe/http-probe.js';
export { faviconHash, mmh3 } from './probe/mmh3.js';
export { fetchTlsInfo, type TlsCertificateInfo } from './probe/tls-info.js';
// ── Out-of-band checks: the interaction server's interface and the engine's call-back waiting.
export {
  DEFAULT_OOB_WAIT_MS,
  MAX_OOB_WAIT_MS,
  OobCorrelator,
  type OobCorrelatorOptions,
  type OobPending,
} from './protocols/oob/oob-correlator.js';
export { usesOob } from './protocols/oob/oob-markers.js';
export type { OobInteraction, OobProtocol, OobProvider } from './protocols/oob/oob-types.js';
export { connectGuarded, createGuardedConnector } from './scope/guarded-net.js';
export { DEFAULT_DENY, ScopeError, ScopePolicy, type ScopePolicyOptions } from './scope/scope-policy.js';
export { parseTarget, type Target, TargetError, type TargetInput } from './scope/targets.js';
