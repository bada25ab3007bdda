import {
  attackOf,
  type CompileContext,
  checkPlaceholders,
  compileOperators,
  loadPayloads,
  type ProtocolCompiler,
  TemplateCompileError,
} from '../../templates/compile-support.ts';
import type { NetworkRequestDoc } from '../../templates/template-schema.ts';
import type { CompiledNetworkRequest } from '../../templates/template-types.ts';

function parsePorts(field: string, port: string | undefined): number[] {
  if (port === undefined || port.trim() === '') return [];
  return port.split(',').map((p) => {
    const n = Number(p.trim());
    if (!Number.isInteger(n) || n < 1 || n > 65535)
      throw new TemplateCompileError(field, `invalid port '${p}'`);
    return n;
  });
}

function decodeInput(
  field: string,
  data: string,
  type: string | undefined,
): { data: Buffer | string; hex?: true } {
  if (type === 'hex') {
    // With placeholders the text is hex only once filled in: decoded when sent.
    if (data.includes('{{')) return { data, hex: true };
    const hex = data.replace(/\s+/g, '');
    if (!/^([0-9a-fA-F]{2})*$/.test(hex)) throw new TemplateCompileError(field, 'input data is not hex');
    return { data: Buffer.from(hex, 'hex') };
  }
  return { data };
}

/** One `tcp:` (or `network:`) block: hosts, ports, the inputs sent, payloads and operators. */
export function compileNetworkRequest(
  r: NetworkRequestDoc,
  field: string,
  ctx: CompileContext,
): Omit<CompiledNetworkRequest, 'index'> {
  const hosts = [...(r.host ?? []), ...(r.address ?? [])];
  if (hosts.length === 0) throw new TemplateCompileError(`${field}.host`, 'no host');
  checkPlaceholders(`${field}.host`, hosts);
  const inputs = (r.inputs ?? []).map((inp, j) => {
    const data = inp.data ?? '';
    checkPlaceholders(`${field}.inputs[${j}].data`, [data]);
    return {
      ...decodeInput(`${field}.inputs[${j}].data`, data, inp.type),
      ...(inp.read !== undefined ? { read: inp.read } : {}),
      ...(inp.name !== undefined ? { name: inp.name } : {}),
    };
  });
  const payloads = loadPayloads(field, r.payloads, ctx);
  return {
    protocol: 'network',
    hosts,
    ports: parsePorts(`${field}.port`, r.port),
    inputs,
    readSize: r['read-size'] ?? 1024,
    ...(/\bjarm\s*\(/i.test(JSON.stringify([r.matchers ?? [], r.extractors ?? []])) ? { jarm: true } : {}),
    payloads,
    attack: attackOf(undefined, payloads),
    ...compileOperators(field, r),
  };
}

export const networkCompiler: ProtocolCompiler = {
  keys: ['tcp', 'network'],
  flowNames: ['tcp', 'network'],
  field: 'tcp',
  compile: compileNetworkRequest,
};
