export {
  base64Py,
  compileGoRegex,
  DSL_FUNCTIONS,
  DslRuntimeError,
  type DslValue,
  murmur3,
  toDslNumber,
  toDslString,
} from './dsl-functions.js';
export { type Interpolated, interpolate, listPlaceholders } from './dsl-interpolate.js';
export {
  type CompiledDsl,
  compileDsl,
  type DslContext,
  evaluateNode,
  isDslFunction,
  truthy,
} from './dsl-interpreter.js';
export { collectDslCalls, collectDslVariables, type DslNode, parseDsl } from './dsl-parser.js';
export { DslSyntaxError, tokenizeDsl } from './dsl-tokenizer.js';
