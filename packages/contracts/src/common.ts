import { z } from 'zod';

/** Every error the API returns has this shape (ARCHITECTURE.md, "API"). */
export const ZApiError = z.object({
  detail: z.string(),
  code: z.string(),
  fields: z.record(z.string(), z.array(z.string())).optional(),
});
export type TApiError = z.infer<typeof ZApiError>;

/** Machine codes of ZApiError.code. */
export const ERROR_CODES = [
  'validation_error',
  'link_invalid',
  'unauthenticated',
  'invalid_credentials',
  'code_invalid',
  'challenge_locked',
  'token_invalid',
  'forbidden',
  'not_found',
  'conflict',
  'rate_limited',
  'maintenance',
  'not_ready',
  'payload_too_large',
  'unsupported_media_type',
  'internal_error',
] as const;
export type TErrorCode = (typeof ERROR_CODES)[number];

/** Successful responses are `{ data: ... }`. */
export const dataEnvelope = <T extends z.ZodType>(schema: T) => z.object({ data: schema });

export const ZOk = z.object({ detail: z.string() });
export type TOk = z.infer<typeof ZOk>;

export const PAGE_SIZE = 10;
export const PAGE_SIZE_LARGE = 20;
