/**
 * Public surface of the finding families (engine II): nuclei-compatible templates
 * (exploit_scanner), CVE database and matching (exploit_db), leaked credentials (leakcheck),
 * and the pipeline stages that run them.
 */

export {
  emailFromSoaRname,
  emailsFromDmarc,
  extractEmails,
  isEmailOfDomain,
} from '../leaks/email-harvest.ts';
export { type AdapterOptions, DehashedSource, HibpSource, LeakCheckSource } from '../leaks/leak-adapters.ts';
export { LeakCipher, maskPassword } from '../leaks/leak-crypto.ts';
export {
  createLeakStage,
  type LeakStageInput,
  type LeakStageOptions,
  leakFinding,
  runLeakStage,
} from '../leaks/leak-stage.ts';
export { type LeakRecord, type LeakSource, LeakSourceError } from '../leaks/leak-types.ts';
export { type ImportReport, LocalLeakIndex } from '../leaks/local-leak-index.ts';
export {
  type CompiledDsl,
  compileDsl,
  compileExtractor,
  compileMatcher,
  type ExtractorDef,
  interpolate,
  type MatcherDef,
  type OperatorEvent,
} from '../operators/index.ts';
export { defaultExecutors, HttpClient } from '../protocols/index.ts';
export {
  type CompiledTemplate,
  compileTemplateSource,
  type LoadOutcome,
  loadTemplates,
  TemplateScanner,
  type TemplateScanOptions,
  type TemplateScanSummary,
  type ValidationReport,
  validateTemplates,
} from '../templates/index.ts';
export { INTRUSIVE_TAGS, isIntrusiveTemplate } from '../templates/intrusive.ts';
export {
  DEFAULT_EXCLUDED_TAGS,
  type IgnoreList,
  readIgnoreList,
  selectTemplates,
  type TemplateSelection,
} from '../templates/template-selection.ts';
export {
  BUILTIN_TEMPLATES_DIR,
  createTemplateStage,
  OOB_NOT_CONFIGURED,
  preloadStageTemplates,
  runTemplateStage,
  type TemplateStageConfig,
  type TemplateStageInput,
} from '../templates/template-stage.ts';
export { runTemplatesCommand } from '../templates/templates-cli.ts';
export {
  type MatchConfidence,
  type MatchHonesty,
  matchHonesty,
  packageRevision,
} from '../vulndb/backport.ts';
export {
  createCveStage,
  type DetectedTechnology as CveDetectedTechnology,
  runCveStage,
} from '../vulndb/cve-stage.ts';
export { JsLibraryDetector } from '../vulndb/js-library-detect.ts';
export { type NpmPackageInfo, NpmRegistry } from '../vulndb/npm-registry.ts';
export { compareVersions, satisfiesConstraint } from '../vulndb/version-compare.ts';
export {
  detectFeedFormat,
  importFeed,
  importFeedFile,
  importFeedUrl,
  importNvd11,
  importNvd20,
  importRetireJs,
} from '../vulndb/vuln-importers.ts';
export { matchProduct, ruleMatchesVersion } from '../vulndb/vuln-match.ts';
export { MemoryVulnStore, type VulnStore } from '../vulndb/vuln-store.ts';
export type { DetectedProduct, VulnRecord } from '../vulndb/vuln-types.ts';
export { findingFingerprint, hostNames, maskSecrets, toCurl } from './evidence.ts';
export { createFindingStages, type FindingStagesConfig } from './finding-stages.ts';
