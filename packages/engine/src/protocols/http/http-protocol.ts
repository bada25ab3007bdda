import { HostSkippedError } from '../../templates/politeness.js';
import type { ProtocolExecutor } from '../../templates/template-runner.js';
import { executeHttpRequest } from './http-executor.js';

/** http: one response per path/raw spec, in order; the runner may stop early (stop-at-first-match). */
export const httpExecutor: ProtocolExecutor = async function* (req, vars, ctx, state) {
  if (req.protocol !== 'http') return;
  if (!state.target.scheme) return; // http templates need a URL input
  for (const spec of req.specs) {
    try {
      yield await executeHttpRequest(req, spec, vars, ctx, req.cookieReuse ? state.cookies : undefined);
    } catch (err) {
      if (err instanceof HostSkippedError || ctx.signal.aborted) throw err;
      state.errors.push(`http: ${(err as Error).message}`);
    }
  }
};
