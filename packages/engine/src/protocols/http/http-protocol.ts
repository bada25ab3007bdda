import { HostSkippedError } from '../../templates/politeness.ts';
import type { ProtocolResponse, RunContext, Variables } from '../../templates/run-types.ts';
import type { ProtocolExecutor, TemplateRunState } from '../../templates/template-runner.ts';
import type { CompiledHttpRequest, CompiledRequest } from '../../templates/template-types.ts';
import { InvalidRequestError } from './http-client.ts';
import { executeHttpRequest, UnresolvedVariableError } from './http-executor.ts';
import { executeUnsafeHttpRequest } from './http-unsafe.ts';

const DONE: IteratorReturnResult<undefined> = Object.freeze({ value: undefined, done: true });

/**
 * The responses of one http request block for one payload combination, in spec order. A
 * plain iterator rather than an async generator: it runs once per payload combination, and a
 * generator's suspend/resume promises cost as much as the rest of the runner's work.
 */
class HttpResponses implements AsyncIterableIterator<ProtocolResponse> {
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

  async next(): Promise<IteratorResult<ProtocolResponse, undefined>> {
    const { req, vars, ctx, state } = this;
    while (this.cursor < req.specs.length) {
      const i = this.cursor++;
      const spec = req.specs[i];
      if (!spec) break;
      // `@once`: a raw request sent once per template run, whatever the payload loop does.
      if (spec.kind === 'raw' && spec.annotated.once) {
        const key = `${req.index}:${i}`;
        if (state.onceSent.has(key)) continue;
        state.onceSent.add(key);
      }
      try {
        const value =
          req.unsafe && spec.kind === 'raw'
            ? await executeUnsafeHttpRequest(req, spec, vars, ctx, state.target.hostname, state.httpParts)
            : await executeHttpRequest(
                req,
                spec,
                vars,
                ctx,
                state.target.hostname,
                req.cookieReuse ? state.cookies : undefined,
                state.httpParts,
              );
        return { value, done: false };
      } catch (err) {
        if (err instanceof HostSkippedError || ctx.signal.aborted) {
          this.cursor = req.specs.length;
          throw err;
        }
        const unsendable = err instanceof InvalidRequestError || err instanceof UnresolvedVariableError;
        state.incomplete.add(unsendable ? 'invalid_request' : 'request_failed');
        state.errors.push(`http: ${(err as Error).message}`);
      }
    }
    return DONE;
  }

  /** The runner stopped early (stop-at-first-match): send nothing more. */
  async return(): Promise<IteratorResult<ProtocolResponse, undefined>> {
    this.cursor = this.req.specs.length;
    return DONE;
  }
}

const NOTHING: AsyncIterable<ProtocolResponse> = {
  [Symbol.asyncIterator]: () => ({ next: async () => DONE }),
};

/** http: one response per path/raw spec, in order; the runner may stop early (stop-at-first-match). */
export const httpExecutor: ProtocolExecutor = (req: CompiledRequest, vars, ctx, state) => {
  if (req.protocol !== 'http') return NOTHING;
  if (!state.target.scheme) return NOTHING; // http templates need a URL input
  return new HttpResponses(req, vars, ctx, state);
};
