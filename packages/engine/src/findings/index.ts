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
} from '../leaks/email-harvest.js';
export { type AdapterOptions, DehashedSource, HibpSource, LeakCheckSource } from '../leaks/leak-adapters.js';
export { LeakCipher, maskPassword } from '../leaks/leak-crypto.js';
export {
  createLeakStage,
  type LeakStageInput,
  type LeakStageOptions,
  leakFinding,
  runLeakStage,
} from '../leaks/leak-stage.js';
export { type LeakRecord, type LeakSource, LeakSourceError } from '../leaks/leak-types.js';
export { type ImportReport, LocalLeakIndex } from '../leaks/local-leak-index.js';
export {
  type CompiledDsl,
  compileDsl,
  compileExtractor,
  compileMatcher,
  type ExtractorDef,
  interpolate,
  type MatcherDef,
  type OperatorEvent,
} from '../operators/index.js';
export { defaultExecutors, HttpClient } from '../protocols/index.js';
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
} from '../templates/index.js';
export { INTRUSIVE_TAGS, isIntrusiveTemplate } from '../templates/intrusive.js';
export {
  DEFAULT_EXCLUDED_TAGS,
  type IgnoreList,
  readIgnoreList,
  selectTemplates,
  type TemplateSelection,
} from '../templates/template-selection.js';
export {
  BUILTIN_TEMPLATES_DIR,
  createTemplateStage,
  OOB_NOT_CONFIGURED,
  runTemplateStage,
  type TemplateStageConfig,
  type TemplateStageInput,
} from '../templates/template-stage.js';
export { runTemplatesCommand } from '../templates/templates-cli.js';
export {
  type MatchConfidence,
  type MatchHonesty,
  matchHonesty,
  packageRevision,
} from '../vulndb/backport.js';
export {
  createCveStage,
  type DetectedTechnology as CveDetectedTechnology,
  runCveStage,
} from '../vulndb/cve-stage.js';
export { JsLibraryDetector } from '../vulndb/js-library-detect.js';
export { type NpmPackageInfo, NpmRegistry } from '../vulndb/npm-registry.js';
export { compareVersions, satisfiesConstraint } from '../vulndb/version-compare.js';
export {
  detectFeedFormat,
  importFeed,
  importFeedFile,
  importFeedUrl,
  importNvd11,
  importNvd20,
  importRetireJs,
} from '../vulndb/vuln-importers.js';
export { matchProduct, ruleMatchesVersion } from '../vulndb/vuln-match.js';
export { MemoryVulnStore, type VulnStore } from '../vulndb/vuln-store.js';
export type { DetectedProduct, VulnRecord } from '../vulndb/vuln-types.js';
export { findingFingerprint, hostNames, maskSecrets, toCurl } from './evidence.js';
export { createFindingStages, type FindingStagesConfig } from './finding-stages.js';
