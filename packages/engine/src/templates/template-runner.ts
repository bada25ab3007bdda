import { setTimeout as sleep } from 'node:timers/promises';
import { findingFingerprint, hostNames, maskSecrets, truncate } from '../findings/evidence.js';
import { SEVERITY_ORDERING, type TemplateFinding } from '../findings/types.js';
import type { DslValue } from '../operators/dsl/dsl-functions.js';
import { interpolate } from '../operators/dsl/dsl-interpolate.js';
import { runMatchers } from '../operators/matchers/matchers.js';
import type { OperatorEvent } from '../operators/operator-types.js';
import type { OobPending } from '../protocols/oob/oob-correlator.js';
import { markRequest, markValues, replaceMarkers } from '../protocols/oob/oob-markers.js';
import type { OobInteraction } from '../protocols/oob/oob-types.js';
import { runFlow } from './flow/flow-interpreter.js';
import { payloadCombinations } from './payloads.js';
import { HostSkippedError } from './politeness.js';
import type { ProtocolResponse, RunContext, Variables } from './run-types.js';
import { type ParsedTarget, parseTarget, targetVariables } from './target-variables.js';
import type {
  CompiledOperators,
  CompiledRequest,
  CompiledTemplate,
  HttpPartsWanted,
} from './template-types.js';

/** Turns one compiled request into responses; a protocol module provides one per protocol. */
export type ProtocolExecutor = (
  req: CompiledRequest,
  vars: Variables,
  ctx: RunContext,
  state: TemplateRunState,
) => AsyncIterable<ProtocolResponse>;

export type ExecutorRegistry = Partial<Record<CompiledRequest['protocol'], ProtocolExecutor>>;

export interface TemplateRunState {
  target: ParsedTarget;
  /** Template, target and dynamic (extracted) variables. */
  vars: Variables;
  /** Parts of earlier responses, suffixed with their request number (`body_1`). */
  history: Variables;
  counter: number;
  cookies: Map<string, string>;
  errors: string[];
  /** Fingerprints already reported in this run. */
  reported: Set<string>;
  /** `@once` raw requests already sent in this run (request index:spec index). */
  onceSent: Set<string>;
  /** Derived http parts the template can read (undefined: all). */
  httpParts?: HttpPartsWanted | undefined;
  /** Every value each named extractor found (a flow reads `template.name` as this list). */
  extracted?: Map<string, string[]>;
  /** Why part of this run did not happen (a request refused or unanswered, the host skipped). */
  incomplete: Set<IncompleteReason>;
  /** Call-back ids minted for the template's variables (every waiting response carries them). */
  oobIds?: string[];
  /** Responses whose match waits for out-of-band call-backs. */
  deferred?: DeferredResponse[];
  /** Responses past the per-run bound that were not kept for call-backs. */
  deferredDropped?: number;
}

/** A response sent with call-back names, kept until its call-backs arrive (or its wait ends). */
interface DeferredResponse {
  operators: CompiledOperators;
  resp: ProtocolResponse;
  /** The response's parts, payload values and variables as they were (later combinations overwrite the live ones). */
  values: Record<string, DslValue>;
  bytes?: Record<string, Buffer>;
  defaultPart: string;
  extracted: string[];
  ids: Set<string>;
  interactions: OobInteraction[];
  matched: boolean;
}

/**
 * Why a template × input task did not run all of its requests to a response:
 * `host_unresponsive` — the host's error budget ran out, the rest was not sent;
 * `request_failed` — a request got no response (refused, reset, time limit);
 * `invalid_request` — a request could not be built or sent as written (no traffic).
 */
export type IncompleteReason = 'host_unresponsive' | 'request_failed' | 'invalid_request';

export interface TemplateRunResult {
  findings: TemplateFinding[];
  errors: string[];
  requests: number;
  incomplete: Set<IncompleteReason>;
  /** Responses waiting for out-of-band call-backs (the scanner waits for them). */
  pending?: OobPending;
}

const MAX_HISTORY_VALUE = 256 * 1024;
/** No extracted values (shared; never written to). */
const NONE: string[] = [];
// Indexed parts (`body_2`) are kept for the first requests of a template run only: that is
// what multi-request templates address, and payload loops then cost neither memory nor time.
const MAX_HISTORY_REQUESTS = 10;

/**
 * The operators' view of a response: its parts over the payload values, over earlier
 * responses' indexed parts, over the variables — layered with prototypes, not copied, so a
 * long payload loop costs no copying.
 */
function blockOperatorsEvent(resp: ProtocolResponse, layer: Variables): OperatorEvent {
  const own = resp.event.values;
  // The response object is this response's alone: layer it over the variables in place
  // (copying its parts onto a new object costs more than the request itself), and hand the
  // response's own event on (its values are that object).
  if (Object.getPrototypeOf(own) !== layer) Object.setPrototypeOf(own, layer);
  return resp.event;
}

/**
 * Keeps this response's parts under their indexed names (`body_2`) — only the names the
 * template refers to. The history object is a prototype of every later response's parts:
 * adding properties to it is what makes lookups through it slow, so most templates (which
 * refer to no indexed part) never touch it.
 */
function keepIndexedParts(state: TemplateRunState, template: CompiledTemplate, resp: ProtocolResponse): void {
  const suffix = `_${state.counter}`;
  for (const name of template.indexedParts) {
    if (!name.endsWith(suffix)) continue;
    const part = name.slice(0, -suffix.length);
    // The response's own parts only (not the payload values and variables beneath them).
    if (!Object.hasOwn(resp.event.values, part)) continue;
    const v = resp.event.values[part];
    if (v === undefined) continue;
    state.history[name] =
      typeof v === 'string' && v.length > MAX_HISTORY_VALUE ? v.slice(0, MAX_HISTORY_VALUE) : v;
  }
}

function buildFinding(
  template: CompiledTemplate,
  state: TemplateRunState,
  resp: ProtocolResponse,
  matcherName: string | undefined,
  extracted: string[],
): TemplateFinding | undefined {
  // One finding per fingerprint in a run: later responses of a payload loop add nothing.
  const key = `${matcherName ?? ''}\u0000${resp.endpoint}\u0000${resp.path}`;
  if (state.reported.has(key)) return undefined;
  state.reported.add(key);
  const fingerprint = findingFingerprint(template.id, matcherName, resp.endpoint, resp.path);
  let hostname = state.target.hostname;
  if (/^https?:\/\//i.test(resp.matchedAt))
    hostname = new URL(resp.matchedAt).hostname.replace(/^\[|\]$/g, '');
  const names = hostNames(hostname);
  const info = template.info;
  const finding: TemplateFinding = {
    subclass: 'exploit_scanner',
    fingerprint,
    templateId: template.id,
    name: info.name,
    severity: info.severity,
    severityOrdering: SEVERITY_ORDERING[info.severity],
    host: names.host,
    mainDomain: names.mainDomain,
    subdomain: names.subdomain,
    matchedAt: resp.matchedAt,
    extracted: extracted.map(maskSecrets),
    references: info.references,
    tags: info.tags,
  };
  if (matcherName) finding.matcherName = matcherName;
  if (info.description) finding.description = info.description;
  if (info.impact) finding.impact = info.impact;
  if (info.remediation) finding.remediation = info.remediation;
  if (info.classification) finding.classification = info.classification;
  if (resp.evidence) finding.evidence = resp.evidence();
  else if (resp.request !== undefined || resp.response !== undefined)
    finding.evidence = { request: resp.request ?? '', response: resp.response ?? '', curl: resp.curl ?? '' };
  return finding;
}

/** The findings one response makes under a block's operators, or undefined when it does not match. */
function matchFindings(
  template: CompiledTemplate,
  state: TemplateRunState,
  resp: ProtocolResponse,
  operators: CompiledOperators,
  reportable: boolean,
  event: OperatorEvent,
  extracted: string[],
): (TemplateFinding | undefined)[] | undefined {
  const { matchers, condition } = operators;
  if (matchers.length === 0) {
    if (extracted.length === 0) return undefined;
    return [buildFinding(template, state, resp, undefined, extracted)];
  }
  const outcome = runMatchers(matchers, condition, event);
  if (!outcome.matched) return undefined;
  if (!reportable) return [];
  if (condition === 'or' && outcome.names.length > 0)
    return outcome.names.map((name) => buildFinding(template, state, resp, name, extracted));
  return [buildFinding(template, state, resp, undefined, extracted)];
}

const MAX_EVIDENCE_INTERACTIONS = 5;
const INTERACTION_TEXT = 4096;
// Waiting responses are kept while other templates run: bounded per run and per value.
const MAX_DEFERRED_PER_RUN = 256;
const MAX_DEFERRED_VALUE = 64 * 1024;

/** A response's parts as they are now, flattened (its layers change with the next combination). */
function snapshotValues(values: Record<string, DslValue>): Record<string, DslValue> {
  const out = Object.create(null) as Record<string, DslValue>;
  for (const k in values) {
    const v = values[k] as DslValue;
    out[k] = typeof v === 'string' && v.length > MAX_DEFERRED_VALUE ? v.slice(0, MAX_DEFERRED_VALUE) : v;
  }
  return out;
}

/** The run's waiting responses, matched against call-backs as they arrive (see oob-correlator.ts). */
function oobPending(
  template: CompiledTemplate,
  state: TemplateRunState,
  deferred: DeferredResponse[],
): OobPending {
  const ids = [...new Set(deferred.flatMap((d) => [...d.ids]))];
  return {
    ids,
    isSettled: () => deferred.every((d) => d.matched),
    evaluate(interactions, late) {
      const out: TemplateFinding[] = [];
      for (const d of deferred) {
        if (d.matched) continue;
        const mine = interactions.filter((i) => d.ids.has(i.id));
        if (mine.length === 0) continue;
        d.interactions.push(...mine);
        for (const i of mine) {
          // nuclei's parts: the protocol, the raw request (a DNS one lowercased), the raw response, the caller.
          const values = Object.create(d.values) as Record<string, DslValue>;
          values.interactsh_protocol = i.protocol;
          values.interactsh_request = i.protocol === 'dns' ? i.rawRequest.toLowerCase() : i.rawRequest;
          values.interactsh_response = i.rawResponse;
          values.interactsh_ip = i.remoteAddress;
          const event: OperatorEvent = {
            values,
            defaultPart: d.defaultPart,
            ...(d.bytes ? { bytes: d.bytes } : {}),
          };
          const extracted = [...d.extracted];
          for (const ex of d.operators.extractors) if (!ex.internal) extracted.push(...ex.extract(event));
          const found = matchFindings(
            template,
            state,
            d.resp,
            d.operators,
            d.operators.matchers.some((m) => !m.internal),
            event,
            [...new Set(extracted)],
          );
          if (!found) continue;
          d.matched = true;
          for (const f of found) {
            if (!f) continue;
            f.evidence = {
              ...(f.evidence ?? { request: '', response: '', curl: '' }),
              interactions: d.interactions.slice(0, MAX_EVIDENCE_INTERACTIONS).map((x) => ({
                ...x,
                rawRequest: maskSecrets(truncate(x.rawRequest, INTERACTION_TEXT)),
                rawResponse: maskSecrets(truncate(x.rawResponse, INTERACTION_TEXT)),
              })),
              ...(late ? { late: true as const } : {}),
            };
            out.push(f);
          }
          break;
        }
      }
      return out;
    },
  };
}

interface BlockOutcome {
  matched: boolean;
  findings: TemplateFinding[];
}

async function runBlock(
  template: CompiledTemplate,
  req: CompiledRequest,
  state: TemplateRunState,
  ctx: RunContext,
  executors: ExecutorRegistry,
  counter: { requests: number },
): Promise<BlockOutcome> {
  const exec = executors[req.protocol];
  if (!exec) {
    state.errors.push(`${req.protocol} protocol not available`);
    return { matched: false, findings: [] };
  }
  const { matchers, extractors } = req.operators;
  const findings: TemplateFinding[] = [];
  const pushFinding = (f: TemplateFinding | undefined) => {
    if (f) findings.push(f);
  };
  let matchedAny = false;
  let last: { resp: ProtocolResponse; vars: Variables } | undefined;

  let vars: Variables = {};
  let lastExtracted: string[] = [];
  // Extractors run on every response so that later requests can use their values.
  const extract = (resp: ProtocolResponse, layer: Variables): OperatorEvent => {
    const event = blockOperatorsEvent(resp, layer);
    if (extractors.length === 0) {
      lastExtracted = NONE;
      return event;
    }
    const extracted: string[] = [];
    for (const ex of extractors) {
      const values = ex.extract(event);
      if (ex.name && values.length > 0) {
        if (state.extracted) {
          const all = state.extracted.get(ex.name) ?? [];
          for (const v of values) if (!all.includes(v)) all.push(v);
          state.extracted.set(ex.name, all);
        }
        state.vars[ex.name] = values[0] as string;
        vars[ex.name] = values[0] as string;
        event.values[ex.name] = values[0] as string;
      }
      if (!ex.internal) extracted.push(...values);
    }
    lastExtracted = [...new Set(extracted)];
    return event;
  };
  const reportable = matchers.some((m) => !m.internal);
  const evaluate = (resp: ProtocolResponse, event: OperatorEvent, extracted: string[]): boolean => {
    const found = matchFindings(template, state, resp, req.operators, reportable, event, extracted);
    if (!found) return false;
    for (const f of found) pushFinding(f);
    return true;
  };
  const oob = template.oob ? ctx.oob : undefined;
  let deferredAny = false;

  const allExtracted: string[] = [];
  // Payload values over earlier responses' indexed parts over the variables: one layer per
  // block whose values each combination overwrites (the same keys every time), so responses
  // built over it share one hidden class and lookups stay fast.
  const layer = Object.create(state.history) as Variables;
  outer: for (const combo of payloadCombinations(req.payloads, req.attack)) {
    let sent = req;
    let values: Variables = combo;
    // Out-of-band: every marker of this combination gets its own call-back name.
    let ids: Set<string> | undefined;
    if (oob) {
      const minted: string[] = [];
      const mint = () => {
        const id = oob.newId();
        minted.push(id);
        return `${id}.${oob.domain}`;
      };
      values = markValues(combo, mint);
      sent = markRequest(req, mint);
      if (req.oobOperators && minted.length + (state.oobIds?.length ?? 0) > 0)
        ids = new Set([...(state.oobIds ?? []), ...minted]);
    }
    vars = Object.assign(layer, values);
    try {
      for await (const resp of exec(sent, vars, ctx, state)) {
        counter.requests++;
        state.counter++;
        if (state.counter <= MAX_HISTORY_REQUESTS) keepIndexedParts(state, template, resp);
        const event = extract(resp, vars);
        if (lastExtracted.length > 0) allExtracted.push(...lastExtracted);
        last = { resp, vars };
        if (ids) {
          // Its matchers read the call-backs: evaluated when they arrive.
          deferredAny = true;
          state.deferred ??= [];
          if (state.deferred.length >= MAX_DEFERRED_PER_RUN) {
            state.deferredDropped = (state.deferredDropped ?? 0) + 1;
            if (state.deferredDropped === 1)
              ctx.log(
                'warn',
                `${template.id}: more than ${MAX_DEFERRED_PER_RUN} responses wait for call-backs; later ones are not kept`,
              );
            continue;
          }
          state.deferred.push({
            operators: req.operators,
            resp,
            values: snapshotValues(event.values),
            ...(event.bytes ? { bytes: event.bytes } : {}),
            defaultPart: event.defaultPart,
            extracted: lastExtracted === NONE ? [] : [...lastExtracted],
            ids,
            interactions: [],
            matched: false,
          });
          continue;
        }
        if (req.protocol === 'http' && req.reqCondition) continue;
        if (req.operators.waitMs) await sleep(req.operators.waitMs, undefined, { signal: ctx.signal });
        if (evaluate(resp, event, lastExtracted)) {
          matchedAny = true;
          if (req.protocol === 'http' && req.stopAtFirstMatch) break outer;
        }
      }
    } catch (err) {
      if (err instanceof HostSkippedError || ctx.signal.aborted) throw err;
      state.errors.push(`${template.id}: ${(err as Error).message}`);
    }
  }
  if (req.protocol === 'http' && req.reqCondition && last && !deferredAny) {
    if (req.operators.waitMs) await sleep(req.operators.waitMs, undefined, { signal: ctx.signal });
    const event = blockOperatorsEvent(last.resp, last.vars);
    matchedAny = evaluate(last.resp, event, [...new Set(allExtracted)]);
  }
  return { matched: matchedAny, findings };
}

const FLOW_PART = /^(http|dns|tcp|network|ssl)_(\d+)_([A-Za-z][A-Za-z0-9_]*)$/;

const PROTOCOL_ALIASES: Record<string, CompiledRequest['protocol']> = {
  http: 'http',
  dns: 'dns',
  tcp: 'network',
  network: 'network',
  ssl: 'ssl',
};

/** Runs one template against one input (URL, host:port or name). Never throws for target errors. */
export async function runTemplate(
  template: CompiledTemplate,
  input: string,
  ctx: RunContext,
  executors: ExecutorRegistry,
): Promise<TemplateRunResult> {
  const target = parseTarget(input);
  // Null-prototype layers: history sees the variables through its prototype, live.
  const vars = Object.assign(Object.create(null) as Variables, targetVariables(target));
  const state: TemplateRunState = {
    target,
    vars,
    history: Object.create(vars) as Variables,
    counter: 0,
    cookies: new Map(),
    errors: [],
    reported: new Set(),
    onceSent: new Set(),
    httpParts: template.httpParts,
    incomplete: new Set(),
  };
  const oob = template.oob ? ctx.oob : undefined;
  const runIds: string[] = [];
  if (oob) state.oobIds = runIds;
  for (const [name, written] of template.variables) {
    // A variable's marker gets one call-back name for the whole run.
    const value = oob
      ? replaceMarkers(written, () => {
          const id = oob.newId();
          runIds.push(id);
          return `${id}.${oob.domain}`;
        })
      : written;
    const r = interpolate(value, state.vars);
    state.vars[name] = r.text;
  }
  const counter = { requests: 0 };
  const findings: TemplateFinding[] = [];
  try {
    if (template.flow) {
      const byProtocol = new Map<string, CompiledRequest[]>();
      for (const r of template.requests)
        byProtocol.set(r.protocol, [...(byProtocol.get(r.protocol) ?? []), r]);
      state.extracted = new Map();
      const extracted = state.extracted;
      const read = (name: string): unknown => {
        const list = extracted.get(name);
        if (list) return list;
        const part = FLOW_PART.exec(name);
        const v = part ? state.history[`${part[3]}_${part[2]}`] : state.history[name];
        return v === undefined ? undefined : v;
      };
      await runFlow(
        template.flow,
        {
          runProtocol: async (protocol, ref) => {
            const list = byProtocol.get(PROTOCOL_ALIASES[protocol] ?? protocol) ?? [];
            const req = typeof ref === 'number' ? list[ref - 1] : list.find((r) => r.id === ref);
            if (!req) throw new Error(`flow: no ${protocol} request ${JSON.stringify(ref)}`);
            const out = await runBlock(template, req, state, ctx, executors, counter);
            findings.push(...out.findings);
            return out.matched;
          },
          set: (name, value) => {
            state.vars[name] = Array.isArray(value)
              ? value.map(String)
              : value === null || value === undefined
                ? ''
                : (value as string);
            extracted.delete(name);
          },
          get: read,
          has: (name) => read(name) !== undefined,
          log: (message) => ctx.log('info', `${template.id} flow: ${message.slice(0, 500)}`),
          signal: ctx.signal,
        },
        Object.keys(PROTOCOL_ALIASES),
      );
    } else {
      for (const req of template.requests) {
        const out = await runBlock(template, req, state, ctx, executors, counter);
        findings.push(...out.findings);
      }
    }
  } catch (err) {
    if (err instanceof HostSkippedError) state.incomplete.add('host_unresponsive');
    state.errors.push(`${template.id}: ${(err as Error).message}`);
  }
  // One finding per fingerprint.
  const unique = new Map(findings.map((f) => [f.fingerprint, f]));
  return {
    findings: [...unique.values()],
    errors: state.errors,
    requests: counter.requests,
    incomplete: state.incomplete,
    ...(state.deferred?.length ? { pending: oobPending(template, state, state.deferred) } : {}),
  };
}
