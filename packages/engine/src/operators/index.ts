export * from './dsl/index.js';
export { type CompiledExtractor, compileExtractor, type ExtractorDef } from './extractors/extractors.js';
export { compileJsonQuery, type JsonQuery } from './extractors/json-query.js';
export {
  type CompiledMatcher,
  compileMatcher,
  type MatcherDef,
  type MatchersOutcome,
  type MatchResult,
  runMatchers,
} from './matchers/matchers.js';
export { OperatorCompileError, type OperatorEvent, partAsString, readPart } from './operator-types.js';
export { compileXPath, parseMarkup, type XPathQuery } from './xpath.js';
