import {
  dataEnvelope,
  ZCreateScanBody,
  ZLastScanProgressQuery,
  ZPagingQuery,
  ZScan,
  ZScanIdBody,
  ZScanProgress,
  ZScanProgressQuery,
  ZScansStats,
  ZScansStatsQuery,
  ZScopeBody,
  ZScopeResponse,
} from '@perimeter/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../server/context.ts';
import { currentUser } from '../../server/plugins/auth.ts';
import * as scans from './scans-service.ts';

export async function scansRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const signedIn = { onRequest: [app.requireUser] };
  const tags = ['scans'];

  r.post('/main/create_abstract_scan', {
    ...signedIn,
    schema: {
      operationId: 'createAbstractScan',
      tags,
      body: ZCreateScanBody,
      response: { 201: dataEnvelope(ZScan) },
    },
    handler: async (request, reply) => {
      const data = await scans.createScan(ctx, currentUser(request).userId, request.body);
      reply.status(201);
      return { data };
    },
  });

  r.post('/main/start_created_abstract_scan', {
    ...signedIn,
    schema: {
      operationId: 'startCreatedAbstractScan',
      tags,
      body: ZScanIdBody,
      response: { 200: dataEnvelope(ZScan) },
    },
    handler: async (request) => ({
      data: await scans.startScan(ctx, currentUser(request).userId, request.body.id),
    }),
  });

  r.post('/main/cancel_running_abstract_scan', {
    ...signedIn,
    schema: {
      operationId: 'cancelRunningAbstractScan',
      tags,
      body: ZScanIdBody,
      response: { 200: dataEnvelope(ZScan) },
    },
    handler: async (request) => ({
      data: await scans.cancelScan(ctx, currentUser(request).userId, request.body.id),
    }),
  });

  r.get('/main/get_abstract_scan', {
    ...signedIn,
    schema: {
      operationId: 'getAbstractScan',
      tags,
      querystring: ZScanProgressQuery,
      response: { 200: dataEnvelope(ZScan) },
    },
    handler: async (request) => ({
      data: await scans.getScanDto(ctx, currentUser(request).userId, request.query.id),
    }),
  });

  r.get('/main/get_user_abstract_scans_stats', {
    ...signedIn,
    schema: {
      operationId: 'getUserAbstractScansStats',
      tags,
      querystring: ZScansStatsQuery,
      response: { 200: dataEnvelope(ZScansStats) },
    },
    handler: async (request) => ({
      data: await scans.getScansStats(ctx, currentUser(request).userId, request.query),
    }),
  });

  r.get('/main/get_user_abstract_scan_progress', {
    ...signedIn,
    schema: {
      operationId: 'getUserAbstractScanProgress',
      tags,
      querystring: ZScanProgressQuery,
      response: { 200: dataEnvelope(ZScanProgress) },
    },
    handler: async (request) => ({
      data: await scans.getProgress(ctx, currentUser(request).userId, request.query.id),
    }),
  });

  r.get('/main/get_last_user_abstract_scan_progress', {
    ...signedIn,
    schema: {
      operationId: 'getLastUserAbstractScanProgress',
      tags,
      querystring: ZLastScanProgressQuery,
      response: { 200: dataEnvelope(ZScanProgress.nullable()) },
    },
    handler: async (request) => ({
      data: await scans.getLastProgress(ctx, currentUser(request).userId, request.query),
    }),
  });

  r.post('/main/get_one_user_abstract_scan_scope', {
    ...signedIn,
    schema: {
      operationId: 'getOneUserAbstractScanScope',
      tags,
      querystring: ZPagingQuery(20),
      body: ZScopeBody,
      response: { 200: dataEnvelope(ZScopeResponse) },
    },
    handler: async (request) => ({
      data: await scans.getScope(ctx, currentUser(request).userId, request.body, request.query),
    }),
  });
}
