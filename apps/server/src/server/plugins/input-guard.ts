import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { badRequest } from '../../lib/errors.ts';

/** Longest string accepted anywhere in a query or path; bodies are bounded by their schemas and size. */
export const MAX_QUERY_STRING = 2048;
export const MAX_BODY_STRING = 65_536;

// A surrogate half without its partner: not a character, and PostgreSQL refuses it.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string cannot be stored or compared safely, or undefined when it is fine. */
export function badStringReason(value: string, maxLength: number): string | undefined {
  if (value.includes('\u0000')) return 'NUL characters are not allowed.';
  if (LONE_SURROGATE.test(value)) return 'Text must be valid Unicode (a lone surrogate was found).';
  if (value.length > maxLength) return `At most ${maxLength} characters.`;
  return undefined;
}

/**
 * Walks a parsed value without recursion (a deeply nested body cannot overflow the stack) and
 * returns the first bad string or key as `[path, reason]`.
 */
export function findBadString(root: unknown, maxLength: number): [string, string] | undefined {
  const stack: Array<[unknown, string]> = [[root, '']];
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    // Raw bodies (the Stripe webhook's signed bytes) are checked by their own route.
    if (ArrayBuffer.isView(value)) continue;
    if (typeof value === 'string') {
      const reason = badStringReason(value, maxLength);
      if (reason) return [path || 'non_field_errors', reason];
    } else if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) stack.push([v, path ? `${path}.${i}` : String(i)]);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, v] of Object.entries(value)) {
        const reason = badStringReason(key, 256);
        if (reason) return [path || 'non_field_errors', `Field name: ${reason}`];
        stack.push([v, path ? `${path}.${key}` : key]);
      }
    }
  }
  return undefined;
}

/**
 * The shared validation every route gets before its own schema: NUL bytes, lone surrogates and
 * over-long strings in the path, the query or the body are a 400 with the field named — they
 * never reach PostgreSQL (which would fail with a 500).
 */
export const inputGuardPlugin = fp(async (app: FastifyInstance) => {
  // A hook with a callback rather than an async function: no promise and microtask per request.
  app.addHook('preValidation', (request, _reply, done) => {
    const parts: Array<[string, unknown, number]> = [
      ['path', request.params, MAX_QUERY_STRING],
      ['query', request.query, MAX_QUERY_STRING],
      ['request body', request.body, MAX_BODY_STRING],
    ];
    for (const [part, value, max] of parts) {
      const bad = findBadString(value, max);
      if (bad) {
        const [field, reason] = bad;
        return done(badRequest(`Invalid ${part}: ${field}: ${reason}`, { [field]: [reason] }));
      }
    }
    done();
  });
});
