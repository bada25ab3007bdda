import type { ProtocolCompiler } from '../templates/compile-support.ts';
import { dnsCompiler } from './dns/dns-compile.ts';
import { httpCompiler } from './http/http-compile.ts';
import { networkCompiler } from './network/network-compile.ts';
import { sslCompiler } from './ssl/ssl-compile.ts';

/**
 * Every protocol's compile step, in the order a template's requests are numbered (`body_1`
 * is the first http request, then dns, network and ssl). A new protocol adds its folder's
 * compiler here and its executor in index.ts.
 */
export const protocolCompilers: readonly ProtocolCompiler[] = [
  httpCompiler,
  dnsCompiler,
  networkCompiler,
  sslCompiler,
];

/** Every template key that holds request blocks (`http`, `requests`, `dns`, `tcp`, …). */
export const PROTOCOL_KEYS: readonly string[] = protocolCompilers.flatMap((c) => c.keys);

/** The protocol calls a `flow:` may make. */
export const FLOW_PROTOCOLS: readonly string[] = protocolCompilers.flatMap((c) => c.flowNames);
