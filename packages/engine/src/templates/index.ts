export { mapConcurrent } from './concurrency.js';
export { payloadCombinations } from './payloads.js';
export { HostGate, RateLimiter, type UnresponsiveHost } from './politeness.js';
export type { DnsServer, ProtocolResponse, RunContext } from './run-types.js';
export { parseTarget, targetVariables } from './target-variables.js';
export {
  type CompileOptions,
  compileTemplateSource,
  stripDigest,
  TemplateCompileError,
} from './template-compile.js';
export {
  type LoadedTemplates,
  listTemplateFiles,
  loadTemplateFile,
  loadTemplates,
  type ValidationReport,
  validateTemplates,
} from './template-loader.js';
export {
  type ExecutorRegistry,
  type ProtocolExecutor,
  runTemplate,
  type TemplateRunResult,
} from './template-runner.js';
export {
  type TemplateJob,
  TemplateScanner,
  type TemplateScanOptions,
  type TemplateScanSummary,
} from './template-scanner.js';
export type { CompiledTemplate, LoadOutcome, TemplateInfo } from './template-types.js';
