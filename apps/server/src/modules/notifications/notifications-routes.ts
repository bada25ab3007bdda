import {
  dataEnvelope,
  ZCreatedWebhook,
  ZCreateWebhookBody,
  ZOk,
  ZWebhookIdBody,
  ZWebhookIdQuery,
  ZWebhookList,
  ZWebhookTestResult,
} from '@perimeter/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../server/context.ts';
import { currentUser } from '../../server/plugins/auth.ts';
import * as notifications from './notifications-service.ts';

const tags = ['notifications'];
const security = [{ bearer: [] }];

export async function notificationsRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const signedIn = { onRequest: [app.requireUser] };

  r.post('/users/webhooks/create', {
    ...signedIn,
    schema: {
      operationId: 'createWebhook',
      tags,
      security,
      body: ZCreateWebhookBody,
      response: { 201: dataEnvelope(ZCreatedWebhook) },
    },
    handler: async (request, reply) => {
      const data = await notifications.createWebhook(ctx, currentUser(request).userId, request.body);
      reply.status(201);
      return { data };
    },
  });

  r.get('/users/webhooks/list', {
    ...signedIn,
    schema: { operationId: 'listWebhooks', tags, security, response: { 200: dataEnvelope(ZWebhookList) } },
    handler: async (request) => ({
      data: await notifications.listWebhooks(ctx, currentUser(request).userId),
    }),
  });

  r.delete('/users/webhooks/delete', {
    ...signedIn,
    schema: {
      operationId: 'deleteWebhook',
      tags,
      security,
      querystring: ZWebhookIdQuery,
      response: { 200: dataEnvelope(ZOk) },
    },
    handler: async (request) => ({
      data: await notifications.deleteWebhook(ctx, currentUser(request).userId, request.query.webhook_id),
    }),
  });

  r.post('/users/webhooks/test', {
    ...signedIn,
    config: { rateLimit: { max: 10, timeWindow: '1 minute' } },
    schema: {
      operationId: 'testWebhook',
      tags,
      security,
      body: ZWebhookIdBody,
      response: { 200: dataEnvelope(ZWebhookTestResult) },
    },
    handler: async (request) => ({
      data: await notifications.testWebhook(ctx, currentUser(request).userId, request.body.webhook_id),
    }),
  });
}
