import {
  dataEnvelope,
  ZAllEventsBody,
  ZEvent,
  ZEventsPage,
  ZEventsQuery,
  ZOneEventsBody,
  ZResolveEventBody,
  ZUnresolveEventBody,
} from '@perimeter/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../server/context.ts';
import { currentUser } from '../../server/plugins/auth.ts';
import { jsonAsBuilt } from '../../server/serialize.ts';
import * as events from './events-service.ts';

export async function eventsRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const signedIn = { onRequest: [app.requireUser] };
  const tags = ['events'];

  r.post('/main/get_all_user_abstract_scan_events', {
    ...signedIn,
    // Built field by field (toEvent): sent as built, the contract checked by events-contract.test.ts.
    serializerCompiler: jsonAsBuilt,
    schema: {
      operationId: 'getAllUserAbstractScanEvents',
      tags,
      querystring: ZEventsQuery,
      body: ZAllEventsBody,
      response: { 200: dataEnvelope(ZEventsPage) },
    },
    handler: async (request) => ({
      data: await events.getAllEvents(ctx, currentUser(request), request.body, request.query),
    }),
  });

  r.post('/main/get_one_user_abstract_scan_events', {
    ...signedIn,
    // Built field by field (toEvent): sent as built, the contract checked by events-contract.test.ts.
    serializerCompiler: jsonAsBuilt,
    schema: {
      operationId: 'getOneUserAbstractScanEvents',
      tags,
      querystring: ZEventsQuery,
      body: ZOneEventsBody,
      response: { 200: dataEnvelope(ZEventsPage) },
    },
    handler: async (request) => ({
      data: await events.getOneScanEvents(ctx, currentUser(request), request.body, request.query),
    }),
  });

  r.post('/main/resolve_abstract_scan_event', {
    ...signedIn,
    schema: {
      operationId: 'resolveAbstractScanEvent',
      tags,
      body: ZResolveEventBody,
      response: { 200: dataEnvelope(ZEvent) },
    },
    handler: async (request) => ({
      data: await events.resolveEvent(ctx, currentUser(request), request.body),
    }),
  });

  r.post('/main/unresolve_abstract_scan_event', {
    ...signedIn,
    schema: {
      operationId: 'unresolveAbstractScanEvent',
      tags,
      body: ZUnresolveEventBody,
      response: { 200: dataEnvelope(ZEvent) },
    },
    handler: async (request) => ({
      data: await events.unresolveEvent(ctx, currentUser(request), request.body),
    }),
  });
}
