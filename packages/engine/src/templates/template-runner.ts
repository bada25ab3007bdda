import { setTimeout as sleep } from 'node:timers/promises';
import type { TemplateFinding } from '../findings/types.ts';
import { interpolate } from '../operators/dsl/dsl-interpolate.ts';
import type { OobPending } from '../protocols/oob/oob-correlator.ts';
import { carriedIds, replaceMarkers } from '../protocols/oob/oob-markers.ts';
import { runFlow } from './flow/flow-interpreter.ts';
import { payloadCombinations } from './payloads.ts';
import { HostSkippedError } from './politeness.ts';
import type { ProtocolResponse, RunContext, Variables } from './run-types.ts';
import { type ParsedTarget, preparedTarget } from './target-variables.ts';
import {
  type DeferredResponse,
  MAX_DEFERRED_PER_RUN,
  markCallbackNames,
  oobPending,
  snapshotValues,
} from './template-run-oob.ts';
import { blockOperators, blockOperatorsEvent, keepIndexedParts, NONE } from './template-run-operators.ts';
import type { CompiledRequest, CompiledTemplate, HttpPartsWanted } from './template-types.ts';

/**
 * A protocol's responses to one request block and payload combination. `isDrained` (when the
 * protocol offers it) says that nothing is left without another `next()`.
 */
export type ProtocolResponses = AsyncIterator<ProtocolResponse, undefined> & { readonly isDrained?: boolean };

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
  // The collections below are made when first written: most runs (one request, no match)
  // write none of them, and four empty collections cost more than the rest of a run's state.
  /** The cookie jar of requests with `cookie-reuse`. */
  cookies?: Map<string, string>;
  errors: string[];
  /** Fingerprints already reported in this run. */
  reported?: Set<string>;
  /** The last of them as matcher name, endpoint and path. */
  lastReported?: [string, string, string];
  /** `@once` raw requests already sent in this run (request index:spec index). */
  onceSent?: Set<string>;
  /** Derived http parts the template can read (undefined: all). */
  httpParts?: HttpPartsWanted | undefined;
  /** Every value each named extractor found (a flow reads `template.name` as this list). */
  extracted?: Map<string, string[]>;
  /** Why part of this run did not happen (a request refused or unanswered, the host skipped). */
  incomplete?: Set<IncompleteReason>;
  /** Call-back ids minted for the template's variables (every waiting response carries them). */
  oobIds?: string[];
  /** Responses whose match waits for out-of-band call-backs. */
  deferred?: DeferredResponse[];
  /** Responses past the per-run bound that were not kept for call-backs. */
  deferredDropped?: number;
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
  incomplete: ReadonlySet<IncompleteReason>;
  /** Responses waiting for out-of-band call-backs (the scanner waits for them). */
  pending?: OobPending;
}

/** The reasons of a run that ran to the end (shared; never written). */
const COMPLETE: ReadonlySet<IncompleteReason> = new Set();

/** Notes why part of a run did not happen. */
export function noteIncomplete(state: TemplateRunState, reason: IncompleteReason): void {
  state.incomplete ??= new Set();
  state.incomplete.add(reason);
}

// Indexed parts (`body_2`) are kept for the first requests of a template run only: that is
// what multi-request templates address, and payload loops then cost neither memory nor time.
const MAX_HISTORY_REQUESTS = 10;

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
  const ops = blockOperators(template, req, state);
  let matchedAny = false;
  let last: ProtocolResponse | undefined;
  const oob = template.oob ? ctx.oob : undefined;
  let deferredAny = false;

  const allExtracted: string[] = [];
  // Payload values over earlier responses' indexed parts over the variables: one layer per
  // block whose values each combination overwrites (the same keys every time), so responses
  // built over it share one hidden class and lookups stay fast. A block without payloads or
  // call-back names writes in it only what its extractors also write in the variables: when
  // nothing lies between (no history), the variables themselves serve — for http. The network
  // and ssl executors copy the layer's own values (a spread) into their scopes, so their blocks
  // keep a layer of their own and see exactly what they saw before.
  const layer =
    req.protocol === 'http' && isEmpty(req.payloads) && !oob && state.history === state.vars
      ? state.vars
      : (Object.create(state.history) as Variables);
  outer: for (const combo of payloadCombinations(req.payloads, req.attack)) {
    // Out-of-band: every marker of this combination gets its own call-back name.
    const { sent, values, names } = oob
      ? markCallbackNames(req, combo, oob, state)
      : { sent: req, values: combo, names: undefined };
    const vars = Object.assign(layer, values);
    ops.vars = vars;
    let nth = 0;
    try {
      // for-await by hand: a protocol that knows it has nothing left says so (isDrained), which
      // saves an await per payload combination.
      const responses = exec(sent, vars, ctx, state)[Symbol.asyncIterator]() as ProtocolResponses;
      let finished = false;
      try {
        while (!responses.isDrained) {
          const step = await responses.next();
          if (step.done) break;
          const resp = step.value;
          counter.requests++;
          state.counter++;
          nth++;
          if (state.counter <= MAX_HISTORY_REQUESTS) keepIndexedParts(state, template, resp);
          const event = ops.extract(resp, vars);
          if (ops.lastExtracted.length > 0) allExtracted.push(...ops.lastExtracted);
          last = resp;
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
        finished = true;
      } finally {
        // Stopped early or failed: let the protocol end its work (as for-await does).
        if (!finished) await responses.return?.();
      }
    } catch (err) {
      if (err instanceof HostSkippedError || ctx.signal.aborted) throw err;
      state.errors.push(`${template.id}: ${(err as Error).message}`);
    }
  }
  if (req.protocol === 'http' && req.reqCondition && last && !deferredAny) {
    if (req.operators.waitMs) await sleep(req.operators.waitMs, undefined, { signal: ctx.signal });
    const event = blockOperatorsEvent(last, layer);
    matchedAny = ops.evaluate(last, event, [...new Set(allExtracted)]);
  }
  return { matched: matchedAny, findings: ops.findings };
}

function isEmpty(record: Record<string, unknown>): boolean {
  for (const _key in record) return false;
  return true;
}

/** One finding per fingerprint (the first). */
function uniqueFindings(findings: TemplateFinding[]): TemplateFinding[] {
  return [...new Map(findings.map((f) => [f.fingerprint, f])).values()];
}

const FLOW_PART = /^(http|dns|tcp|network|ssl)_(\d+)_([A-Za-z][A-Za-z0-9_]*)$/;

const PROTOCOL_ALIASES: Record<string, CompiledRequest['protocol']> = {
  http: 'http',
  dns: 'dns',
  tcp: 'network',
  network: 'network',
  ssl: 'ssl',
};

/**
 * A template run's state before its first request: target and template variables.
 *
 * Layers (history over the variables over the input's) are made only for a run that writes
 * them. Most runs write none: they read the input's shared variables, and the response parts
 * built over them have the same prototype in every run against that input. A fresh object made
 * a prototype per run gave every response a hidden class of its own, and every property read
 * on it (interpolation, matchers) missed V8's caches.
 */
function newRunState(template: CompiledTemplate, input: string, ctx: RunContext): TemplateRunState {
  const { target, variables } = preparedTarget(input);
  // Read-only when no variables are written (`ownVariables` says whether any are).
  const shared = variables as Variables;
  const vars = template.ownVariables ? (Object.create(shared) as Variables) : shared;
  // Every field, set or not, in one order: one hidden class for every run's state (a field
  // added later makes another, and a cluster member's copy of a state with several is slow).
  const state: TemplateRunState = {
    target,
    vars,
    // History sees the variables through its prototype, live; only indexed parts go in it.
    history: template.indexedParts.length > 0 ? (Object.create(vars) as Variables) : vars,
    counter: 0,
    cookies: undefined,
    errors: [],
    reported: undefined,
    lastReported: undefined,
    onceSent: undefined,
    httpParts: template.httpParts,
    extracted: undefined,
    incomplete: undefined,
    oobIds: undefined,
    deferred: undefined,
    deferredDropped: undefined,
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
  // Nothing writes the layer the responses are built over (a cluster's request has no payloads;
  // members extract into layers of their own, below): the run's history serves.
  const layer = state.history;
  const runs = members.map((template) => {
    const req = template.requests[0] as CompiledRequest;
    // Each member reports and extracts on its own: its own fingerprints, its own variables
    // (layers of its own only when it writes any: named extractors).
    const own: TemplateRunState = {
      ...state,
      reported: undefined,
      lastReported: undefined,
      vars: template.ownVariables ? (Object.create(state.vars) as Variables) : state.vars,
    };
    const ops = blockOperators(template, req, own);
    ops.vars = template.ownVariables ? (Object.create(layer) as Variables) : layer;
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
      if (err instanceof HostSkippedError) noteIncomplete(state, 'host_unresponsive');
      failure = (err as Error).message;
    }
  }
  return runs.map((run, i) => {
    const id = (members[i] as CompiledTemplate).id;
    return {
      findings: run.ops.findings.length > 1 ? uniqueFindings(run.ops.findings) : run.ops.findings,
      errors: failure === undefined ? [...state.errors] : [...state.errors, `${id}: ${failure}`],
      requests: i === 0 ? requests : 0,
      incomplete: state.incomplete ? new Set(state.incomplete) : COMPLETE,
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
    if (err instanceof HostSkippedError) noteIncomplete(state, 'host_unresponsive');
    state.errors.push(`${template.id}: ${(err as Error).message}`);
  }
  const result: TemplateRunResult = {
    findings: findings.length > 1 ? uniqueFindings(findings) : findings,
    errors: state.errors,
    requests: counter.requests,
    incomplete: state.incomplete ?? COMPLETE,
  };
  if (state.deferred?.length) result.pending = oobPending(template, state, state.deferred);
  return result;
}
