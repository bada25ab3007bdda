export { mapConcurrent } from './concurrency.ts';
export { payloadCombinations } from './payloads.ts';
export { HostGate, RateLimiter, type RateScope, RequestRate, type UnresponsiveHost } from './politeness.ts';
export type { DnsServer, ProtocolResponse, RunContext } from './run-types.ts';
export { parseTarget, targetVariables } from './target-variables.ts';
export {
  type CompileOptions,
  compileTemplateSource,
  stripDigest,
  TemplateCompileError,
} from './template-compile.ts';
export {
  type LoadedTemplates,
  listTemplateFiles,
  loadTemplateFile,
  loadTemplates,
  type ValidationReport,
  validateTemplates,
} from './template-loader.ts';
export {
  type ExecutorRegistry,
  type ProtocolExecutor,
  runTemplate,
  type TemplateRunResult,
} from './template-runner.ts';
export {
  type TemplateJob,
  TemplateScanner,
  type TemplateScanOptions,
  type TemplateScanSummary,
} from './template-scanner.ts';
export type { CompiledTemplate, LoadOutcome, TemplateInfo } from './template-types.ts';
