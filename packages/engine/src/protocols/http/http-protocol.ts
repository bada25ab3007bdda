import { HostSkippedError } from '../../templates/politeness.js';
import type { ProtocolExecutor } from '../../templates/template-runner.js';
import { executeHttpRequest } from './http-executor.js';

/** http: one response per path/raw spec, in order; the runner may stop early (stop-at-first-match). */
export const httpExecutor: ProtocolExecutor = async function* (req, vars, ctx, state) {
  if (req.protocol !== 'http') return;
  if (!state.target.scheme) return; // http templates need a URL input
  for (const [i, spec] of req.specs.entries()) {
    // `@once`: a raw request sent once per template run, whatever the payload loop does.
    if (spec.kind === 'raw' && spec.annotated.once) {
      const key = `${req.index}:${i}`;
      if (state.onceSent.has(key)) continue;
      state.onceSent.add(key);
    }
    try {
      yield await executeHttpRequest(
        req,
        spec,
        vars,
        ctx,
        req.cookieReuse ? state.cookies : undefined,
        state.httpParts,
      );
    } catch (err) {
      if (err instanceof HostSkippedError || ctx.signal.aborted) throw err;
      state.errors.push(`http: ${(err as Error).message}`);
    }
  }
};
