import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

const SECRET_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  '*.password',
  '*.password1',
  '*.password2',
  '*.old_password',
  '*.new_password1',
  '*.new_password2',
  '*.passwordHash',
  '*.refresh',
  '*.access',
  '*.ephemeral_token',
  '*.secret',
];

type Serialized = Record<string, unknown>;

/**
 * An error as logged: the standard serialization without the values a failed query carried
 * (`params`: e-mails, password hashes, tokens), at any depth of `cause`.
 */
export function serializeError(err: unknown): Serialized {
  const out = pino.stdSerializers.err(err as Error) as unknown as Serialized;
  const strip = (o: Serialized, depth: number) => {
    delete o.params;
    delete o.parameters;
    delete o.values;
    // PostgreSQL's detail and position text quote row values (`Key (email)=(…) already exists`).
    delete o.detail;
    delete o.where;
    delete o.internalQuery;
    for (const field of ['message', 'stack'] as const) {
      if (typeof o[field] !== 'string') continue;
      o[field] = (o[field] as string)
        // Drizzle's message repeats the parameters after "params:".
        .replace(/\nparams: [^\n]*/g, '\nparams: [redacted]')
        // PostgreSQL quotes the offending value (`invalid input syntax for type integer: "…"`).
        .replace(/"[^"\n]*"/g, '"[redacted]"');
    }
    if (depth < 5 && o.cause && typeof o.cause === 'object') strip(o.cause as Serialized, depth + 1);
  };
  strip(out, 0);
  return out;
}

// Route parameters that are secrets themselves: the e-mail key and the password-reset token.
const SECRET_PARAM = /:(key|token)\b/;

/**
 * A request as logged: method, path and route — never the query string, which can carry
 * addresses and keys, and for routes whose path carries a secret only the route pattern.
 */
export function serializeRequest(req: {
  method?: string;
  url?: string;
  routeOptions?: { url?: string };
  ip?: string;
  id?: string;
}) {
  const route = req.routeOptions?.url;
  return {
    method: req.method,
    url: route && SECRET_PARAM.test(route) ? route : (req.url ?? '').split('?')[0],
    ...(route ? { route } : {}),
    ...(req.id ? { id: req.id } : {}),
  };
}

/** A reply as logged: its status code (the fields Fastify's own serializer gives). */
const serializeReply = (reply: { statusCode: number }) => ({ statusCode: reply.statusCode });

/**
 * Each logger's twin for the two lines every request writes (`incoming request`, `request
 * completed`: server/request-log.ts): the same level, stream, base fields and serializers, without
 * the redaction. Those lines carry only serializeRequest's fields (method, path or route pattern,
 * route, id), a status code and a time — never a header, a body or a query string — so the
 * redaction has nothing to find in them. Pino's redaction clones each value it is given and parses
 * its 13 paths again each time: for those two lines it was ~25 of the ~220 kB an events page
 * request allocated and ~5 % of the API's CPU under the bench's 200 clients.
 */
const requestLines = new WeakMap<Logger, Logger>();

/** The unredacted twin of a logger made by createLogger, for the per-request lines only. */
export const requestLinesOf = (logger: Logger): Logger | undefined => requestLines.get(logger);

/**
 * Where the product's loggers write (stdout, or a file): pino's asynchronous destination with its
 * lines gathered into writes of at least 4 kB, and what is gathered written at least every 100 ms
 * and when the process exits (pino flushes it then; only a process killed outright loses its last
 * 100 ms). With a write per line (pino's default), each of the two lines of every request was an
 * fs write of its own through libuv's thread pool: under the events bench's 200 clients the API
 * used ~10 % more CPU per request (interleaved A/B).
 */
export function logDestination(dest: number | string = 1): DestinationStream {
  return pino.destination({ dest, minLength: 4096, periodicFlush: 100 });
}

export function createLogger(level: string, destination: DestinationStream = logDestination()): Logger {
  const logger = pino(
    {
      level,
      redact: { paths: SECRET_PATHS, censor: '[redacted]' },
      serializers: { err: serializeError, error: serializeError, req: serializeRequest },
    },
    destination,
  );
  // The twin writes to the very stream of the logger.
  const stream = (logger as unknown as Record<symbol, DestinationStream>)[pino.symbols.streamSym];
  requestLines.set(
    logger,
    pino({ level, serializers: { req: serializeRequest, res: serializeReply } }, stream),
  );
  return logger;
}
