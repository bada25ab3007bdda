import { HostSkippedError } from '../../templates/politeness.ts';
import type { ProtocolResponse, RunContext, Variables } from '../../templates/run-types.ts';
import {
  noteIncomplete,
  type ProtocolExecutor,
  type TemplateRunState,
} from '../../templates/template-runner.ts';
import type { CompiledHttpRequest, CompiledRequest } from '../../templates/template-types.ts';
import { InvalidRequestError } from './http-client.ts';
import { type ExchangeOutcome, executeHttpRequest, UnresolvedVariableError } from './http-executor.ts';
import { executeUnsafeHttpRequest } from './http-unsafe.ts';

const DONE: IteratorReturnResult<undefined> = Object.freeze({ value: undefined, done: true });
const ALL_DONE: Promise<IteratorReturnResult<undefined>> = Promise.resolve(DONE);

/**
 * The responses of one http request block for one payload combination, in spec order. A
 * plain iterator rather than an async generator: it runs once per payload combination, and a
 * generator's suspend/resume promises cost as much as the rest of the runner's work. The
 * last `next()` (nothing left) answers with one shared settled promise.
 */
class HttpResponses
  implements
    AsyncIterableIterator<ProtocolResponse>,
    ExchangeOutcome<IteratorResult<ProtocolResponse, undefined>>
{
  private cursor = 0;

  constructor(
    private readonly req: CompiledHttpRequest,
    private readonly vars: Variables,
    private readonly ctx: RunContext,
    private readonly state: TemplateRunState,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Nothing left to send (the runner then asks no more: see ProtocolResponses). */
  get isDrained(): boolean {
    return this.cursor >= this.req.specs.length;
  }

  next(): Promise<IteratorResult<ProtocolResponse, undefined>> {
    const at = this.nextSpec();
    // Not an async method: an async frame per request costs several times its bytes. The
    // exchange settles the step itself (see ExchangeOutcome).
    return at < 0 ? ALL_DONE : this.send(at);
  }

  /** The next spec to send, or -1 (`@once` raw requests are sent once per template run). */
  private nextSpec(): number {
    const { req, state } = this;
    while (this.cursor < req.specs.length) {
      const i = this.cursor++;
      const spec = req.specs[i];
      if (!spec) break;
      if (spec.kind === 'raw' && spec.annotated.once) {
        const key = `${req.index}:${i}`;
        state.onceSent ??= new Set();
        if (state.onceSent.has(key)) continue;
        state.onceSent.add(key);
      }
      return i;
    }
    return -1;
  }

  private send(i: number): Promise<IteratorResult<ProtocolResponse, undefined>> {
    const { req, vars, ctx, state } = this;
    const spec = req.specs[i] as CompiledHttpRequest['specs'][number];
    if (req.cookieReuse) state.cookies ??= new Map();
    return req.unsafe && spec.kind === 'raw'
      ? executeUnsafeHttpRequest(req, spec, vars, ctx, state.target.hostname, state.httpParts).then(
          toStep,
          (err) => this.failure(err),
        )
      : executeHttpRequest(
          req,
          spec,
          vars,
          ctx,
          state.target.hostname,
          req.cookieReuse ? state.cookies : undefined,
          state.httpParts,
          this,
        );
  }

  /** The exchange's response as this iterator's step (ExchangeOutcome). */
  response(resp: ProtocolResponse): IteratorResult<ProtocolResponse, undefined> {
    return toStep(resp);
  }

  /**
   * No response (ExchangeOutcome, on a later turn): noted, and the next spec goes (unless the
   * host or the scan stopped).
   */
  failure(err: unknown): Promise<IteratorResult<ProtocolResponse, undefined>> {
    const { req, ctx, state } = this;
    if (err instanceof HostSkippedError || ctx.signal.aborted) {
      this.cursor = req.specs.length;
      return Promise.reject(err);
    }
    const unsendable = err instanceof InvalidRequestError || err instanceof UnresolvedVariableError;
    noteIncomplete(state, unsendable ? 'invalid_request' : 'request_failed');
    state.errors.push(`http: ${(err as Error).message}`);
    return this.next();
  }

  /** The runner stopped early (stop-at-first-match): send nothing more. */
  return(): Promise<IteratorResult<ProtocolResponse, undefined>> {
    this.cursor = this.req.specs.length;
    return ALL_DONE;
  }
}

function toStep(value: ProtocolResponse): IteratorResult<ProtocolResponse, undefined> {
  return { value, done: false };
}

const NOTHING: AsyncIterable<ProtocolResponse> = {
  [Symbol.asyncIterator]: () => ({ next: () => ALL_DONE }),
};

/** http: one response per path/raw spec, in order; the runner may stop early (stop-at-first-match). */
export const httpExecutor: ProtocolExecutor = (req: CompiledRequest, vars, ctx, state) => {
  if (req.protocol !== 'http') return NOTHING;
  if (!state.target.scheme) return NOTHING; // http templates need a URL input
  return new HttpResponses(req, vars, ctx, state);
};
