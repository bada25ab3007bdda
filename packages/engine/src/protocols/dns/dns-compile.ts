import {
  attackOf,
  type CompileContext,
  checkPlaceholders,
  compileOperators,
  loadPayloads,
  type ProtocolCompiler,
} from '../../templates/compile-support.ts';
import type { DnsRequestDoc } from '../../templates/template-schema.ts';
import type { CompiledDnsRequest } from '../../templates/template-types.ts';

/** One `dns:` block: the name and record type asked, payloads and operators. */
export function compileDnsRequest(
  r: DnsRequestDoc,
  field: string,
  ctx: CompileContext,
): Omit<CompiledDnsRequest, 'index'> {
  checkPlaceholders(`${field}.name`, [r.name]);
  const payloads = loadPayloads(field, r.payloads, ctx);
  return {
    protocol: 'dns',
    name: r.name,
    type: r.type,
    recursion: r.recursion !== false,
    retries: r.retries ?? 1,
    payloads,
    attack: attackOf(undefined, payloads),
    ...compileOperators(field, r),
  };
}

export const dnsCompiler: ProtocolCompiler = {
  keys: ['dns'],
  flowNames: ['dns'],
  field: 'dns',
  compile: compileDnsRequest,
};
