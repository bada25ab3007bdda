import type { TErrorCode } from '@perimeter/contracts';

/** The server's one error type: the error-handler plugin turns it into `{detail, code, fields?}`. */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: TErrorCode,
    readonly detail: string,
    readonly fields?: Record<string, string[]>,
  ) {
    super(detail);
    this.name = 'AppError';
  }
}

export const badRequest = (detail: string, fields?: Record<string, string[]>) =>
  new AppError(400, 'validation_error', detail, fields);
export const unauthenticated = (detail = 'Authentication credentials were not provided or are invalid.') =>
  new AppError(401, 'unauthenticated', detail);
export const forbidden = (detail: string) => new AppError(403, 'forbidden', detail);
export const notFound = (detail = 'Not found.') => new AppError(404, 'not_found', detail);
export const conflict = (detail: string, fields?: Record<string, string[]>) =>
  new AppError(409, 'conflict', detail, fields);
export const rateLimited = (detail: string) => new AppError(429, 'rate_limited', detail);
