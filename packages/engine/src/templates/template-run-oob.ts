// A template run's responses that wait for out-of-band call-backs, matched as they arrive.
import { maskSecrets, truncate } from '../findings/evidence.ts';
import type { TemplateFinding } from '../findings/types.ts';
import type { DslValue } from '../operators/dsl/dsl-functions.ts';
import type { OperatorEvent } from '../operators/operator-types.ts';
import type { OobPending } from '../protocols/oob/oob-correlator.ts';
import { interactionParts, markRequest, markValues, type OobNames } from '../protocols/oob/oob-markers.ts';
import type { OobInteraction } from '../protocols/oob/oob-types.ts';
import type { ProtocolResponse, RunContext, Variables } from './run-types.ts';
import { matchFindings } from './template-run-operators.ts';
import type { TemplateRunState } from './template-runner.ts';
import type { CompiledOperators, CompiledRequest, CompiledTemplate } from './template-types.ts';

/** A response sent with call-back names, kept until its call-backs arrive (or its wait ends). */
export interface DeferredResponse {
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
 * Gives every call-back marker of one payload combination its own name: in the payload values
 * (they reach every response of the block) and in the request (only the response it was sent in
 * fills the indexed `interactsh_*_<n>` parts). No names when the block's matchers read no call-back.
 */
export function markCallbackNames(
  req: CompiledRequest,
  combo: Variables,
  oob: NonNullable<RunContext['oob']>,
  state: TemplateRunState,
): { sent: CompiledRequest; values: Variables; names: OobNames | undefined } {
  const minted: string[] = [];
  const mint = () => {
    const id = oob.newId();
    minted.push(id);
    return `${id}.${oob.domain}`;
  };
  const values = markValues(combo, mint);
  const fromValues = minted.length;
  const sent = markRequest(req, mint);
  const names =
    req.oobOperators && minted.length + (state.oobIds?.length ?? 0) > 0
      ? {
          everywhere: [...(state.oobIds ?? []), ...minted.slice(0, fromValues)],
          inRequest: minted.slice(fromValues),
        }
      : undefined;
  return { sent, values, names };
}

const MAX_EVIDENCE_INTERACTIONS = 5;
const INTERACTION_TEXT = 4096;
// Waiting responses are kept while other templates run: bounded per run and per value.
export const MAX_DEFERRED_PER_RUN = 256;
const MAX_DEFERRED_VALUE = 64 * 1024;

/** A response's parts as they are now, flattened (its layers change with the next combination). */
export function snapshotValues(values: Record<string, DslValue>): Record<string, DslValue> {
  const out = Object.create(null) as Record<string, DslValue>;
  for (const k in values) {
    const v = values[k] as DslValue;
    out[k] = typeof v === 'string' && v.length > MAX_DEFERRED_VALUE ? v.slice(0, MAX_DEFERRED_VALUE) : v;
  }
  return out;
}

/** The run's waiting responses, matched against call-backs as they arrive (see oob-correlator.ts). */
export function oobPending(
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
          const found = matchFindings(template, state, d.resp, d.operators, event, [...new Set(extracted)]);
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
