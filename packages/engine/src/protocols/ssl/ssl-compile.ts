import {
  type CompileContext,
  checkPlaceholders,
  compileOperators,
  type ProtocolCompiler,
  TemplateCompileError,
} from '../../templates/compile-support.ts';
import type { SslRequestDoc } from '../../templates/template-schema.ts';
import type { CompiledSslRequest } from '../../templates/template-types.ts';

/** nuclei's TLS version names → Node's. SSLv3 is not offered by Node and fails cleanly. */
export const TLS_VERSIONS: Record<string, string> = {
  sslv3: 'SSLv3',
  ssl30: 'SSLv3',
  tls10: 'TLSv1',
  tls11: 'TLSv1.1',
  tls12: 'TLSv1.2',
  tls13: 'TLSv1.3',
};

/** One `ssl:` block: the address, the TLS versions allowed, and operators. */
export function compileSslRequest(
  r: SslRequestDoc,
  field: string,
  _ctx: CompileContext,
): Omit<CompiledSslRequest, 'index'> {
  checkPlaceholders(`${field}.address`, [r.address]);
  for (const [key, v] of [
    ['min_version', r.min_version],
    ['max_version', r.max_version],
  ] as const) {
    if (v !== undefined && !TLS_VERSIONS[v.toLowerCase()])
      throw new TemplateCompileError(`${field}.${key}`, `unknown TLS version '${v}'`);
  }
  return {
    protocol: 'ssl',
    address: r.address,
    ...(r.min_version ? { minVersion: r.min_version.toLowerCase() } : {}),
    ...(r.max_version ? { maxVersion: r.max_version.toLowerCase() } : {}),
    payloads: {},
    attack: 'batteringram',
    ...compileOperators(field, r),
  };
}

export const sslCompiler: ProtocolCompiler = {
  keys: ['ssl'],
  flowNames: ['ssl'],
  field: 'ssl',
  compile: compileSslRequest,
};
