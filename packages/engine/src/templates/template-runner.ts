import { setTimeout as sleep } from 'node:timers/promises';
import { findingFingerprint, hostNames, maskSecrets, truncate } from '../findings/evidence.ts';
import { SEVERITY_ORDERING, type TemplateFinding } from '../findings/types.ts';
import type { DslValue } from '../operators/dsl/dsl-functions.ts';
import { interpolate } from '../operators/dsl/dsl-interpolate.ts';
import { runMatchers } from '../operators/matchers/matchers.ts';
import type { OperatorEvent } from '../operators/operator-types.ts';
import type { OobPending } from '../protocols/oob/oob-correlator.ts';
import {
  carriedIds,
  interactionParts,
  markRequest,
  markValues,
  type OobNames,
  replaceMarkers,
} from '../protocols/oob/oob-markers.ts';
import type { OobInteraction } from '../protocols/oob/oob-types.ts';
import { runFlow } from './flow/flow-interpreter.ts';
import { payloadCombinations } from './payloads.ts';
import { HostSkippedError } from './politeness.ts';
import type { ProtocolResponse, RunContext, Variables } from './run-types.ts';
import { type ParsedTarget, parseTarget, targetVariables } from './target-variables.ts';
import type {
  CompiledOperators,
  CompiledRequest,
  CompiledTemplate,
  HttpPartsWanted,
} from './template-types.ts';

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
  /** The request's number in the run, and the ids it sent: their call-backs also fill `interactsh_*_<index>`. */
  index: number;
  sent: Set<string>;
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
          const values = Object.create(d.values) as Record<string, DslValue>;
          Object.assign(values, interactionParts(i, d.sent.has(i.id) ? d.index : undefined));
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

/**
 * One request block's operators over its responses: extractors run on every response (later
 * requests and flows read their values), matchers decide, findings are collected.
 */
function blockOperators(template: CompiledTemplate, req: CompiledRequest, state: TemplateRunState) {
  const { matchers, extractors } = req.operators;
  const findings: TemplateFinding[] = [];
  const pushFinding = (f: TemplateFinding | undefined) => {
    if (f) findings.push(f);
  };
  const reportable = matchers.some((m) => !m.internal);
  const ops = {
    findings,
    /** The last response's extracted values (non-internal), deduplicated. */
    lastExtracted: NONE,
    /** Named extractor values of this block so far (over the layer). */
    vars: {} as Variables,
    extract(resp: ProtocolResponse, layer: Variables): OperatorEvent {
      const event = blockOperatorsEvent(resp, layer);
      if (extractors.length === 0) {
        ops.lastExtracted = NONE;
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
          ops.vars[ex.name] = values[0] as string;
          event.values[ex.name] = values[0] as string;
        }
        if (!ex.internal) extracted.push(...values);
      }
      ops.lastExtracted = [...new Set(extracted)];
      return event;
    },
    evaluate(resp: ProtocolResponse, event: OperatorEvent, extracted: string[]): boolean {
      const found = matchFindings(template, state, resp, req.operators, reportable, event, extracted);
      if (!found) return false;
      for (const f of found) pushFinding(f);
      return true;
    },
  };
  return ops;
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
  const ops = blockOperators(template, req, state);
  let matchedAny = false;
  let last: { resp: ProtocolResponse; vars: Variables } | undefined;
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
    let names: OobNames | undefined;
    if (oob) {
      const minted: string[] = [];
      const mint = () => {
        const id = oob.newId();
        minted.push(id);
        return `${id}.${oob.domain}`;
      };
      values = markValues(combo, mint);
      const fromValues = minted.length;
      sent = markRequest(req, mint);
      if (req.oobOperators && minted.length + (state.oobIds?.length ?? 0) > 0)
        names = {
          everywhere: [...(state.oobIds ?? []), ...minted.slice(0, fromValues)],
          inRequest: minted.slice(fromValues),
        };
    }
    const vars = Object.assign(layer, values);
    ops.vars = vars;
    let nth = 0;
    try {
      for await (const resp of exec(sent, vars, ctx, state)) {
        counter.requests++;
        state.counter++;
        nth++;
        if (state.counter <= MAX_HISTORY_REQUESTS) keepIndexedParts(state, template, resp);
        const event = ops.extract(resp, vars);
        if (ops.lastExtracted.length > 0) allExtracted.push(...ops.lastExtracted);
        last = { resp, vars };
        if (names) {
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
            extracted: ops.lastExtracted === NONE ? [] : [...ops.lastExtracted],
            ids: new Set([...names.everywhere, ...names.inRequest]),
            index: state.counter,
            sent: carriedIds(sent, nth - 1, names),
            interactions: [],
            matched: false,
          });
          continue;
        }
        if (req.protocol === 'http' && req.reqCondition) continue;
        if (req.operators.waitMs) await sleep(req.operators.waitMs, undefined, { signal: ctx.signal });
        if (ops.evaluate(resp, event, ops.lastExtracted)) {
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
    matchedAny = ops.evaluate(last.resp, event, [...new Set(allExtracted)]);
  }
  return { matched: matchedAny, findings: ops.findings };
}

const FLOW_PART = /^(http|dns|tcp|network|ssl)_(\d+)_([A-Za-z][A-Za-z0-9_]*)$/;

const PROTOCOL_ALIASES: Record<string, CompiledRequest['protocol']> = {
  http: 'http',
  dns: 'dns',
  tcp: 'network',
  network: 'network',
  ssl: 'ssl',
};

/** A template run's state before its first request: target and template variables. */
function newRunState(template: CompiledTemplate, input: string, ctx: RunContext): TemplateRunState {
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
  return state;
}

/**
 * Runs a request cluster (see template-cluster.ts) against one input: the shared request is
 * sent once, each member's operators run on every response as if it had sent it itself. A
 * member with stop-at-first-match stops deciding at its first match; the cluster stops sending
 * only when every member has stopped. One result per member, in member order; the requests
 * are counted once, on the first member.
 */
export async function runCluster(
  cluster: CompiledTemplate,
  input: string,
  ctx: RunContext,
  executors: ExecutorRegistry,
): Promise<TemplateRunResult[]> {
  const members = cluster.cluster ?? [cluster];
  const state = newRunState(cluster, input, ctx);
  const req = cluster.requests[0] as CompiledRequest;
  const layer = Object.create(state.history) as Variables;
  const runs = members.map((template) => {
    const req = template.requests[0] as CompiledRequest;
    // Each member reports and extracts on its own: its own fingerprints, its own variables.
    const own: TemplateRunState = { ...state, reported: new Set(), vars: Object.create(state.vars) };
    const ops = blockOperators(template, req, own);
    ops.vars = Object.create(layer) as Variables;
    const stops = req.protocol === 'http' && req.stopAtFirstMatch;
    return { ops, stops, stopped: false, extracts: req.operators.extractors.length > 0 };
  });
  let requests = 0;
  let failure: string | undefined;
  const exec = executors[req.protocol];
  if (!exec) failure = `${req.protocol} protocol not available`;
  else {
    try {
      for await (const resp of exec(req, layer, ctx, state)) {
        requests++;
        state.counter++;
        if (state.counter <= MAX_HISTORY_REQUESTS) keepIndexedParts(state, cluster, resp);
        const shared = blockOperatorsEvent(resp, layer);
        let open = 0;
        for (const run of runs) {
          if (run.stopped) continue;
          // A member's named extractors write into its own view of the response.
          // (Over the response itself, so its evidence method still reads its own fields.)
          const view: ProtocolResponse = run.extracts
            ? Object.create(resp, { event: { value: { ...shared, values: Object.create(shared.values) } } })
            : resp;
          const event = run.ops.extract(view, view === resp ? layer : shared.values);
          if (run.ops.evaluate(view, event, run.ops.lastExtracted) && run.stops) run.stopped = true;
          else open++;
        }
        if (open === 0) break;
      }
    } catch (err) {
      if (err instanceof HostSkippedError) state.incomplete.add('host_unresponsive');
      failure = (err as Error).message;
    }
  }
  return runs.map((run, i) => {
    const unique = new Map(run.ops.findings.map((f) => [f.fingerprint, f]));
    const id = (members[i] as CompiledTemplate).id;
    return {
      findings: [...unique.values()],
      errors: failure === undefined ? [...state.errors] : [...state.errors, `${id}: ${failure}`],
      requests: i === 0 ? requests : 0,
      incomplete: new Set(state.incomplete),
    };
  });
}

/** Runs one template against one input (URL, host:port or name). Never throws for target errors. */
export async function runTemplate(
  template: CompiledTemplate,
  input: string,
  ctx: RunContext,
  executors: ExecutorRegistry,
): Promise<TemplateRunResult> {
  const state = newRunState(template, input, ctx);
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
