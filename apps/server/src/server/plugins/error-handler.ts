import type { TApiError, TErrorCode } from '@perimeter/contracts';
import type { FastifyError, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError } from '../../lib/errors.ts';

const CODE_BY_STATUS: Record<number, TErrorCode> = {
  400: 'validation_error',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'maintenance',
};

const PART_NAMES: Record<string, string> = {
  body: 'request body',
  querystring: 'query',
  params: 'path',
  headers: 'headers',
};

function addField(fields: Record<string, string[]>, key: string, message: string) {
  fields[key] = [...(Object.hasOwn(fields, key) ? fields[key]! : []), message];
}

function validationError(err: FastifyError): TApiError {
  // No prototype: a client's field may be called `toString` or `__proto__`.
  const fields: Record<string, string[]> = Object.create(null);
  for (const issue of err.validation ?? []) {
    const base = issue.instancePath.replace(/^\//, '').replaceAll('/', '.');
    const unknownKeys = (issue.params as { keys?: unknown }).keys;
    if (issue.keyword === 'unrecognized_keys' && Array.isArray(unknownKeys)) {
      for (const key of unknownKeys)
        addField(fields, base ? `${base}.${key}` : String(key), 'Unknown field.');
      continue;
    }
    addField(fields, base || 'non_field_errors', issue.message ?? 'Invalid value.');
  }
  const part = PART_NAMES[err.validationContext ?? 'body'] ?? 'request';
  const summary = Object.entries(fields)
    .map(([f, msgs]) => (f === 'non_field_errors' ? msgs.join(' ') : `${f}: ${msgs.join(' ')}`))
    .join('; ');
  return { detail: `Invalid ${part}: ${summary}`, code: 'validation_error', fields };
}

/** The one place where errors become responses: `{detail, code, fields?}` with the right status. */
export const errorHandlerPlugin = fp(async (app: FastifyInstance) => {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof AppError) {
      const body: TApiError = { detail: err.detail, code: err.code };
      if (err.fields) body.fields = err.fields;
      return reply.status(err.statusCode).send(body);
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      return reply.status(400).send(validationError(err));
    }
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code = CODE_BY_STATUS[status] ?? 'validation_error';
      // Fastify's own client errors (bad JSON, wrong content type, body too large) keep their message.
      return reply.status(status).send({ detail: err.message || 'Bad request.', code } satisfies TApiError);
    }
    request.log.error({ err }, 'unhandled error');
    return reply.status(500).send({
      detail: 'Something went wrong on our side. It has been logged.',
      code: 'internal_error',
    } satisfies TApiError);
  });
});
