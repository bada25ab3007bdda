// ── Discovery engine (class_resources): targets, scope, DNS, subdomains, ports, HTTP probe,
//    fingerprints and the scan pipeline.
export { fetchCtNames } from './discovery/certificate-transparency.ts';
export { detectWildcard, isWildcardAnswer, type WildcardInfo } from './discovery/wildcard.ts';
export { BUILTIN_WORDLIST_PATH, builtinWordlist, loadWordlist, parseWordlist } from './discovery/wordlist.ts';
export { attemptZoneTransfer } from './discovery/zone-transfer.ts';
export {
  DnsError,
  DnsResolver,
  type DnsResponse,
  type DnsServer,
  type HostResolution,
  parseServer,
  type ResolverOptions,
  txtValues,
} from './dns/dns-resolver.ts';
// ── Finding families (engine II): templates (exploit_scanner), CVE matching (exploit_db),
//    leaked credentials (leakcheck) and their pipeline stages.
export * from './findings/index.ts';
// ── Finding types shared by the finding families.
export type * from './findings/types.ts';
export {
  type DetectedTechnology,
  FingerprintEngine,
  type FingerprintInput,
} from './fingerprint/fingerprint-engine.ts';
export {
  BUILTIN_FINGERPRINTS_DIR,
  type FingerprintSet,
  loadFingerprints,
} from './fingerprint/fingerprint-loader.ts';
export type * from './pipeline/events.ts';
export { type HttpEndpoint, Inventory } from './pipeline/inventory.ts';
export {
  partialText,
  preloadFingerprints,
  resourceStages,
  type ScanOptions,
  scan,
  selectStages,
} from './pipeline/scan.ts';
export {
  SCAN_CLASSES,
  SCAN_SUBCLASSES,
  type ScanClass,
  type ScanConfig,
  type ScanSubclass,
  SUBCLASS_CLASS,
} from './pipeline/scan-config.ts';
export type { Stage, StageContext } from './pipeline/stage.ts';
export { ScanCoverage, StageReport } from './pipeline/stage-report.ts';
export { scanTcpPorts } from './ports/connect-scanner.ts';
export { isNmapAvailable, parseNmapXml, runNmap } from './ports/nmap-adapter.ts';
export { parsePorts, TOP_100_PORTS, TOP_1000_PORTS } from './ports/port-lists.ts';
export { identifyService, type ServiceInfo } from './ports/service-probes.ts';
export { recogniseBanner, recogniseServerHeader } from './ports/service-recognition.ts';
export { type HttpProbeResult, HttpProber } from './probe/http-probe.ts';
export { faviconHash, mmh3 } from './probe/mmh3.ts';
export { fetchTlsInfo, type TlsCertificateInfo } from './probe/tls-info.ts';
// ── Out-of-band checks: the interaction server's interface and the engine's call-back waiting.
export {
  DEFAULT_OOB_WAIT_MS,
  MAX_OOB_WAIT_MS,
  OobCorrelator,
  type OobCorrelatorOptions,
  type OobPending,
} from './protocols/oob/oob-correlator.ts';
export { usesOob } from './protocols/oob/oob-markers.ts';
export type { OobInteraction, OobProtocol, OobProvider } from './protocols/oob/oob-types.ts';
export { connectGuarded, createGuardedConnector } from './scope/guarded-net.ts';
export { DEFAULT_DENY, ScopeError, ScopePolicy, type ScopePolicyOptions } from './scope/scope-policy.ts';
export { parseTarget, type Target, TargetError, type TargetInput } from './scope/targets.ts';
