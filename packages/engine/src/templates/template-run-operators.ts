// How a template run's responses meet a block's operators: extractors, matchers, findings.
import { findingFingerprint, hostNames, maskSecrets } from '../findings/evidence.ts';
import { SEVERITY_ORDERING, type TemplateFinding } from '../findings/types.ts';
import { runMatchers } from '../operators/matchers/matchers.ts';
import type { OperatorEvent } from '../operators/operator-types.ts';
import type { ProtocolResponse, Variables } from './run-types.ts';
import type { TemplateRunState } from './template-runner.ts';
import type { CompiledOperators, CompiledRequest, CompiledTemplate } from './template-types.ts';

const MAX_HISTORY_VALUE = 256 * 1024;
/** No extracted values (shared; never written to). */
export const NONE: string[] = [];
/** A match that makes no new finding (shared; never written to). */
const NO_FINDINGS: (TemplateFinding | undefined)[] = Object.freeze([]) as unknown as TemplateFinding[];

/**
 * The operators' view of a response: its parts over the payload values, over earlier
 * responses' indexed parts, over the variables — layered with prototypes, not copied, so a
 * long payload loop costs no copying.
 */
export function blockOperatorsEvent(resp: ProtocolResponse, layer: Variables): OperatorEvent {
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
export function keepIndexedParts(
  state: TemplateRunState,
  template: CompiledTemplate,
  resp: ProtocolResponse,
): void {
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
  // One finding per fingerprint in a run: later responses of a payload loop add nothing (the
  // last one reported is checked first, without building its key).
  const name = matcherName ?? '';
  const last = state.lastReported;
  if (last && last[0] === name && last[1] === resp.endpoint && last[2] === resp.path) return undefined;
  state.lastReported = [name, resp.endpoint, resp.path];
  const key = `${name}\u0000${resp.endpoint}\u0000${resp.path}`;
  state.reported ??= new Set();
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

/** What deciding a response needs of a block's operators. */
type DecidingOperators = Pick<CompiledOperators, 'matchers' | 'condition' | 'reportable'>;

/** The findings one response makes under a block's operators, or undefined when it does not match. */
export function matchFindings(
  template: CompiledTemplate,
  state: TemplateRunState,
  resp: ProtocolResponse,
  operators: DecidingOperators,
  event: OperatorEvent,
  extracted: string[],
): (TemplateFinding | undefined)[] | undefined {
  const { matchers, condition, reportable } = operators;
  if (matchers.length === 0) {
    if (extracted.length === 0) return undefined;
    return [buildFinding(template, state, resp, undefined, extracted)];
  }
  const outcome = runMatchers(matchers, condition, event);
  if (!outcome.matched) return undefined;
  if (!reportable) return [];
  if (condition === 'or' && outcome.names.length > 0)
    return outcome.names.map((name) => buildFinding(template, state, resp, name, extracted));
  // Later responses of a payload loop mostly repeat the finding already made: no list for them.
  const finding = buildFinding(template, state, resp, undefined, extracted);
  return finding ? [finding] : NO_FINDINGS;
}

/**
 * One request block's operators over its responses: extractors run on every response (later
 * requests and flows read their values), matchers decide, findings are collected. A class, not
 * an object of closures: one is made per template run (per request, in most of a real scan).
 *
 * It holds the block's compiled matchers and extractors for the run: the request's operators
 * hold them weakly (see compile-support.ts), and reading them through the weak reference on
 * every response of a payload loop allocates each time.
 */
class BlockOperators implements DecidingOperators {
  readonly findings: TemplateFinding[] = [];
  /** The last response's extracted values (non-internal), deduplicated. */
  lastExtracted: string[] = NONE;
  /** Named extractor values of this block so far (over the layer). */
  vars: Variables = {};
  readonly matchers: CompiledOperators['matchers'];
  readonly extractors: CompiledOperators['extractors'];
  readonly condition: CompiledOperators['condition'];
  readonly reportable: boolean;

  constructor(
    private readonly template: CompiledTemplate,
    req: CompiledRequest,
    private readonly state: TemplateRunState,
  ) {
    const { operators } = req;
    this.matchers = operators.matchers;
    this.extractors = operators.extractors;
    this.condition = operators.condition;
    this.reportable = operators.reportable;
  }

  extract(resp: ProtocolResponse, layer: Variables): OperatorEvent {
    const event = blockOperatorsEvent(resp, layer);
    const { extractors } = this;
    if (extractors.length === 0) {
      this.lastExtracted = NONE;
      return event;
    }
    const state = this.state;
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
        this.vars[ex.name] = values[0] as string;
        event.values[ex.name] = values[0] as string;
      }
      if (!ex.internal) extracted.push(...values);
    }
    this.lastExtracted = [...new Set(extracted)];
    return event;
  }

  evaluate(resp: ProtocolResponse, event: OperatorEvent, extracted: string[]): boolean {
    const found = matchFindings(this.template, this.state, resp, this, event, extracted);
    if (!found) return false;
    for (const f of found) if (f) this.findings.push(f);
    return true;
  }
}

export function blockOperators(
  template: CompiledTemplate,
  req: CompiledRequest,
  state: TemplateRunState,
): BlockOperators {
  return new BlockOperators(template, req, state);
}
