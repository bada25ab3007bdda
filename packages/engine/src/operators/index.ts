export * from './dsl/index.ts';
export { type CompiledExtractor, compileExtractor, type ExtractorDef } from './extractors/extractors.ts';
export { compileJsonQuery, type JsonQuery } from './extractors/json-query.ts';
export {
  type CompiledMatcher,
  compileMatcher,
  type MatcherDef,
  type MatchersOutcome,
  type MatchResult,
  runMatchers,
} from './matchers/matchers.ts';
export { OperatorCompileError, type OperatorEvent, partAsString, readPart } from './operator-types.ts';
export { compileXPath, parseMarkup, type XPathQuery } from './xpath.ts';
