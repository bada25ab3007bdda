import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import rateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TApiError } from '@perimeter/contracts';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import helmet from 'helmet';
import { AppError } from '../lib/errors.ts';
import { requestLinesOf } from '../lib/logger.ts';
import { authRoutes } from '../modules/auth/auth-routes.ts';
import { billingRoutes } from '../modules/billing/billing-routes.ts';
import { dashboardRoutes } from '../modules/dashboard/dashboard-routes.ts';
import { eventsRoutes } from '../modules/events/events-routes.ts';
import { intelRoutes } from '../modules/intel/intel-routes.ts';
import { notificationsRoutes } from '../modules/notifications/notifications-routes.ts';
import { oobRoutes } from '../modules/oob/oob-routes.ts';
import { reportsRoutes } from '../modules/reports/reports-routes.ts';
import { scansRoutes } from '../modules/scans/scans-routes.ts';
import { schedulesRoutes } from '../modules/schedules/schedules-routes.ts';
import { systemRoutes } from '../modules/system/system-routes.ts';
import type { MaintenanceState } from '../modules/system/system-service.ts';
import { targetsRoutes } from '../modules/targets/targets-routes.ts';
import type { AppContext } from './context.ts';
import { authPlugin } from './plugins/auth.ts';
import { errorHandlerPlugin } from './plugins/error-handler.ts';
import { inputGuardPlugin } from './plugins/input-guard.ts';
import { maintenancePlugin } from './plugins/maintenance.ts';
import { RequestLines } from './request-log.ts';

export const DEFAULT_WEB_DIST = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../web/dist',
);

const IMMUTABLE_CACHE_CONTROL = 'public, max-age=31536000, immutable';
const INDEX_CACHE_CONTROL = 'no-cache';

function isApiUrl(url: string): boolean {
  return url === '/api' || url.startsWith('/api/') || url.startsWith('/api?');
}

/** Vite names everything under assets/ by content hash: those never change; the rest is revalidated. */
export function staticCacheControl(root: string, filePath: string): string {
  const relative = path.relative(root, filePath).split(path.sep).join('/');
  return relative.startsWith('assets/') ? IMMUTABLE_CACHE_CONTROL : INDEX_CACHE_CONTROL;
}

type HeaderStep = { set: string; value: string | number | readonly string[] } | { remove: string };

/**
 * helmet's headers as the steps its middleware takes (every value is a constant of its options:
 * no nonce, nothing read of the request), replayed on each response in the same order, with the
 * same names and values. Its chain of thirteen middlewares, a closure and a call each, was ~4 µs
 * of the API's CPU per request under the events bench's load (--cpu-prof: 10.6 µs with the
 * headers' own setHeader).
 */
export function securityHeadersOf(options: Parameters<typeof helmet>[0]): (res: ServerResponse) => void {
  const steps: HeaderStep[] = [];
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => steps.push({ set: name, value }),
    removeHeader: (name: string) => steps.push({ remove: name }),
  };
  let failed: unknown;
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (err?: unknown) => {
    failed = err;
  });
  if (failed) throw failed;
  return (res) => {
    for (const step of steps) {
      if ('set' in step) res.setHeader(step.set, step.value);
      else res.removeHeader(step.remove);
    }
  };
}

/** helmet's options: the security headers of every response. */
export const SECURITY_HEADERS: Parameters<typeof helmet>[0] = {
  contentSecurityPolicy: {
    directives: {
      defaultSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      styleSrc: ["'self'", "'unsafe-inline'"],
      scriptSrc: ["'self'"],
      connectSrc: ["'self'"],
      frameAncestors: ["'none'"],
    },
  },
};

export interface AppOptions {
  ctx: AppContext;
  maintenance: MaintenanceState;
  /** This process also runs workers: readiness checks the job queue too. */
  queue?: boolean;
}

export async function buildApp({ ctx, maintenance, queue = false }: AppOptions): Promise<FastifyInstance> {
  const { env } = ctx.config;
  const lines = requestLinesOf(ctx.logger);
  const app = Fastify({
    loggerInstance: ctx.logger as FastifyBaseLogger,
    ...(lines ? { logController: new RequestLines(lines) } : {}),
    trustProxy: env.TRUST_PROXY,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(given) ? given : randomUUID();
    },
    requestIdHeader: false,
    bodyLimit: 1_048_576,
    routerOptions: { maxParamLength: 512 },
    // Errors the router raises before any route runs (malformed URLs, over-long parameters).
    frameworkErrors: (err, _request, reply) => {
      const body: TApiError = { detail: `Malformed request: ${err.message}`, code: 'validation_error' };
      void (reply as FastifyReply).status(400).send(body);
    },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // A hook with a callback rather than an async function: no promise and microtask per request.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });

  // The change notifications that keep the remembered session states and events totals true.
  if (env.PERIMETER_CHANGE_FEED) {
    const feed = ctx.changes.listen(ctx.database.pool.options);
    app.addHook('onClose', () => feed.close());
  }

  await app.register(errorHandlerPlugin);
  // Security headers, computed once: @fastify/helmet rebuilt helmet's middleware (parsing the CSP
  // directives) on every request, ~30 µs of CPU each; the built middleware only sets the headers.
  const securityHeaders = securityHeadersOf(SECURITY_HEADERS);
  app.addHook('onRequest', (_request, reply, done) => {
    securityHeaders(reply.raw);
    done();
  });
  await app.register(rateLimit, {
    global: true,
    max: env.RATE_LIMIT_GLOBAL_PER_MINUTE,
    timeWindow: '1 minute',
    // One page load fetches dozens of static files: only the API counts against the limit.
    allowList: (request) => !isApiUrl(request.url),
    errorResponseBuilder: (_request, context) =>
      new AppError(429, 'rate_limited', `Too many requests. Try again in ${context.after}.`),
  });
  await app.register(inputGuardPlugin);
  await app.register(authPlugin, { ctx });
  await app.register(maintenancePlugin, { maintenance });
  await app.register(swagger, {
    openapi: {
      info: { title: 'Perimeter API', version: '0.1.0', description: 'External security scanning.' },
      servers: [{ url: '/api' }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    },
    transform: jsonSchemaTransform,
  });

  await app.register(
    async (api) => {
      api.get('/openapi.json', { schema: { hide: true } }, async () => api.swagger());
      await api.register(swaggerUi, { routePrefix: '/docs' });
      await api.register(systemRoutes, { maintenance, ctx, queue });
      await api.register(authRoutes, { ctx });
      await api.register(targetsRoutes, { ctx });
      await api.register(scansRoutes, { ctx });
      await api.register(eventsRoutes, { ctx });
      await api.register(schedulesRoutes, { ctx });
      await api.register(reportsRoutes, { ctx });
      await api.register(notificationsRoutes, { ctx });
      await api.register(dashboardRoutes, { ctx });
      await api.register(billingRoutes, { ctx });
      await api.register(intelRoutes, { ctx });
      await api.register(oobRoutes, { ctx });
    },
    { prefix: '/api' },
  );

  const webDist = env.PERIMETER_WEB_DIST ? path.resolve(env.PERIMETER_WEB_DIST) : DEFAULT_WEB_DIST;
  const hasWeb = existsSync(path.join(webDist, 'index.html'));
  if (hasWeb) {
    await app.register(fastifyStatic, {
      root: webDist,
      wildcard: false,
      index: false,
      cacheControl: false,
      setHeaders: (reply, filePath) => reply.header('cache-control', staticCacheControl(webDist, filePath)),
    });
  }
  app.setNotFoundHandler((request, reply) => {
    if (hasWeb && !isApiUrl(request.url) && (request.method === 'GET' || request.method === 'HEAD')) {
      return reply.type('text/html').header('cache-control', INDEX_CACHE_CONTROL).sendFile('index.html');
    }
    return reply.status(404).send({
      detail: `No route ${request.method} ${request.url.split('?')[0]}.`,
      code: 'not_found',
    } satisfies TApiError);
  });
  return app;
}
