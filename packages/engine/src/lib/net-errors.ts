/**
 * Error codes of a host that gave no answer: the time ran out, or the connection was refused or
 * unreachable after the port scan had found it open. Not among them: an answer that was not what
 * was asked for (not HTTP, a failed TLS handshake), a reset (some servers end a handshake they
 * will not take that way, every time) and a refusal by the scope policy.
 */
const NO_ANSWER = new Set([
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * The code when `e` or one of its causes says the host gave no answer (the check could not run:
 * a stage skips it, which makes the scan partial), else undefined (the host answered).
 */
export function noAnswerCode(e: unknown): string | undefined {
  let x = e;
  for (let depth = 0; x && typeof x === 'object' && depth < 4; depth++) {
    const code = (x as { code?: unknown }).code;
    if (typeof code === 'string' && NO_ANSWER.has(code)) return code;
    x = (x as { cause?: unknown }).cause;
  }
  return undefined;
}
