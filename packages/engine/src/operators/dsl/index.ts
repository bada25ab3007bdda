export {
  base64Py,
  compileGoRegex,
  DSL_FUNCTIONS,
  DslRuntimeError,
  type DslValue,
  murmur3,
  toDslNumber,
  toDslString,
} from './dsl-functions.ts';
export { type Interpolated, interpolate, listPlaceholders } from './dsl-interpolate.ts';
export {
  type CompiledDsl,
  compileDsl,
  type DslContext,
  evaluateNode,
  isDslFunction,
  truthy,
} from './dsl-interpreter.ts';
export { collectDslCalls, collectDslVariables, type DslNode, parseDsl } from './dsl-parser.ts';
export { DslSyntaxError, tokenizeDsl } from './dsl-tokenizer.ts';
