import type { RecordType } from 'dns-packet';
import type { DslValue } from '../../operators/dsl/dsl-functions.ts';
import { interpolate } from '../../operators/dsl/dsl-interpolate.ts';
import type { ProtocolExecutor } from '../../templates/template-runner.ts';
import { type DnsQueryResult, formatRecord, queryDns, RCODES } from './dns-client.ts';

/** dns: one query per request; parts answer, ns, extra, raw, rcode, question. */
export const dnsExecutor: ProtocolExecutor = async function* (req, vars, ctx, state) {
  if (req.protocol !== 'dns') return;
  const r = interpolate(req.name, vars);
  if (r.unresolved.length > 0) {
    state.errors.push(`dns: unresolved ${r.unresolved.join(', ')}`);
    return;
  }
  const name = r.text.replace(/\.$/, '');
  const endpoint = ctx.dnsServers[0] ? `${ctx.dnsServers[0].host}:${ctx.dnsServers[0].port}` : 'dns';
  // Skipped is not a "no": the template's earlier findings must keep their state.
  if (ctx.hosts.isBlocked(endpoint)) {
    state.errors.push(`dns ${name} ${req.type}: server ${endpoint} skipped: error budget exhausted`);
    return;
  }
  const ask = async (): Promise<DnsQueryResult> => {
    await ctx.rate.acquire(endpoint, ctx.signal);
    try {
      return await queryDns(ctx.dnsServers, name, req.type as RecordType, {
        timeoutMs: Math.min(ctx.timeoutMs, 5000),
        retries: req.retries,
        recursion: req.recursion,
        signal: ctx.signal,
      });
    } catch (err) {
      // Once per question sent, however many templates were waiting for its answer.
      if (!ctx.signal.aborted) ctx.hosts.recordError(endpoint, (err as Error).message);
      throw err;
    }
  };
  let result: DnsQueryResult;
  try {
    // Another template's identical question: its answer (dns-answers.ts).
    result = await (ctx.dnsAnswers
      ? ctx.dnsAnswers.get(`${req.type} ${name.toLowerCase()} ${req.recursion} ${req.retries}`, ask)
      : ask());
  } catch (err) {
    state.errors.push(`dns ${name} ${req.type}: ${(err as Error).message}`);
    return;
  }
  const p = result.packet;
  const answer = (p.answers ?? []).map(formatRecord).join('\n');
  const ns = (p.authorities ?? []).map(formatRecord).join('\n');
  const extra = (p.additionals ?? [])
    .filter((a) => a.type !== 'OPT')
    .map(formatRecord)
    .join('\n');
  const rcodeName = (p as { rcode?: string }).rcode ?? 'NOERROR';
  const question = `;${name}.\tIN\t ${req.type}`;
  const raw = [
    `;; ->>HEADER<<- opcode: QUERY, status: ${rcodeName}, id: ${p.id ?? 0}`,
    ';; QUESTION SECTION:',
    question,
    '',
    ';; ANSWER SECTION:',
    answer,
    '',
    ';; AUTHORITY SECTION:',
    ns,
    '',
    ';; ADDITIONAL SECTION:',
    extra,
  ].join('\n');
  const values: Record<string, DslValue> = {
    host: name,
    matched: name,
    answer,
    ns,
    extra,
    raw,
    rcode: RCODES[rcodeName] ?? rcodeName,
    rcode_name: rcodeName,
    question,
    request: `${name} ${req.type}`,
    type: req.type,
  };
  yield {
    event: { values, defaultPart: 'raw' },
    matchedAt: name,
    endpoint: name,
    path: req.type,
    request: `${req.type} ${name} @${result.server.host}:${result.server.port}`,
    response: raw.slice(0, 4096),
    curl: `dig @${result.server.host} -p ${result.server.port} ${name} ${req.type}`,
  };
};
