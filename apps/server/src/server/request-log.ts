import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { Logger } from '../lib/logger.ts';

/** The request's logger (pino's child, whose level a route may set) writes info lines. */
const isInfoOn = (request: FastifyRequest) => (request.log as Logger).isLevelEnabled('info');

/**
 * Fastify's two lines per request (`incoming request`, `request completed`), written through the
 * logger's unredacted twin (lib/logger.ts: requestLinesOf) with the same fields and order — the
 * request id, the request as serializeRequest logs it, the status code and time. Anything else
 * (an errored request, an error handled, a route not found) keeps Fastify's own line on the
 * request's logger, with its redaction.
 */
export class RequestLines extends LogController {
  constructor(private readonly lines: Logger) {
    super();
  }

  /** The request's info lines are on and the twin's level lets them through; else Fastify writes them. */
  private isOurs(request: FastifyRequest): boolean {
    return isInfoOn(request) && this.lines.isLevelEnabled('info');
  }

  override incomingRequest(request: FastifyRequest, reply: FastifyReply) {
    if (this.isLogDisabled(request) || !this.isOurs(request)) return super.incomingRequest(request, reply);
    this.lines.info({ [this.requestIdLogLabel]: request.id, req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    if (error || this.isLogDisabled(request) || !this.isOurs(request))
      return super.requestCompleted(error, request, reply);
    this.lines.info(
      { [this.requestIdLogLabel]: request.id, res: reply, responseTime: reply.elapsedTime },
      'request completed',
    );
  }
}
