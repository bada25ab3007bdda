import {
  dataEnvelope,
  ZAddTargetsBody,
  ZAddTargetsResponse,
  ZExtendedTargetsByType,
  ZGetInfoByIdQuery,
  ZGetTargetsQuery,
  ZReplaceTargetBody,
  ZReplaceTargetResponse,
  ZTarget,
  ZTargetInfo,
  ZTargetRef,
  ZTargetsByType,
  ZVerificationResult,
  ZVerificationTxt,
} from '@perimeter/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../server/context.ts';
import { currentUser } from '../../server/plugins/auth.ts';
import * as targets from './targets-service.ts';

const BASE = '/main/user_target';

export async function targetsRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const signedIn = { onRequest: [app.requireUser] };
  const tags = ['targets'];

  r.get(`${BASE}/get_targets`, {
    ...signedIn,
    schema: {
      operationId: 'getTargets',
      tags,
      querystring: ZGetTargetsQuery,
      response: { 200: dataEnvelope(ZTargetsByType) },
    },
    handler: async (request) => ({
      data: await targets.getTargets(ctx, currentUser(request).userId, request.query),
    }),
  });

  r.post(`${BASE}/add_targets`, {
    ...signedIn,
    schema: {
      operationId: 'addTargets',
      tags,
      body: ZAddTargetsBody,
      response: { 201: dataEnvelope(ZAddTargetsResponse) },
    },
    handler: async (request, reply) => {
      const data = await targets.addTargets(ctx, currentUser(request).userId, request.body);
      reply.status(201);
      return { data };
    },
  });

  r.get(`${BASE}/get_extend_targets_info`, {
    ...signedIn,
    schema: {
      operationId: 'getExtendTargetsInfo',
      tags,
      querystring: ZGetTargetsQuery,
      response: { 200: dataEnvelope(ZExtendedTargetsByType) },
    },
    handler: async (request) => ({
      data: await targets.getExtendedTargets(ctx, currentUser(request).userId, request.query),
    }),
  });

  r.get(`${BASE}/get_info_by_id`, {
    ...signedIn,
    schema: {
      operationId: 'getTargetInfoById',
      tags,
      querystring: ZGetInfoByIdQuery,
      response: { 200: dataEnvelope(ZTargetInfo) },
    },
    handler: async (request) => ({
      data: await targets.getInfoById(ctx, currentUser(request).userId, request.query),
    }),
  });

  r.post(`${BASE}/get_verification_txt`, {
    ...signedIn,
    schema: {
      operationId: 'getVerificationTxt',
      tags,
      body: ZTargetRef,
      response: { 200: dataEnvelope(ZVerificationTxt) },
    },
    handler: async (request) => ({
      data: await targets.getVerificationTxt(ctx, currentUser(request).userId, request.body),
    }),
  });

  r.post(`${BASE}/check_verification`, {
    ...signedIn,
    schema: {
      operationId: 'checkVerification',
      tags,
      body: ZTargetRef,
      response: { 200: dataEnvelope(ZVerificationResult) },
    },
    handler: async (request) => ({
      data: await targets.checkVerification(ctx, currentUser(request).userId, request.body),
    }),
  });

  r.post(`${BASE}/disable_verification`, {
    ...signedIn,
    schema: {
      operationId: 'disableVerification',
      tags,
      body: ZTargetRef,
      response: { 200: dataEnvelope(ZTarget) },
    },
    handler: async (request) => ({
      data: await targets.disableVerification(ctx, currentUser(request).userId, request.body),
    }),
  });

  r.post(`${BASE}/disable`, {
    ...signedIn,
    schema: {
      operationId: 'disableTarget',
      tags,
      body: ZTargetRef,
      response: { 200: dataEnvelope(ZTarget) },
    },
    handler: async (request) => ({
      data: await targets.disableTarget(ctx, currentUser(request).userId, request.body),
    }),
  });

  r.post(`${BASE}/enable`, {
    ...signedIn,
    schema: {
      operationId: 'enableTarget',
      tags,
      body: ZTargetRef,
      response: { 200: dataEnvelope(ZTarget) },
    },
    handler: async (request) => ({
      data: await targets.enableTarget(ctx, currentUser(request).userId, request.body),
    }),
  });

  r.post(`${BASE}/replace`, {
    ...signedIn,
    schema: {
      operationId: 'replaceTarget',
      tags,
      body: ZReplaceTargetBody,
      response: { 200: dataEnvelope(ZReplaceTargetResponse) },
    },
    handler: async (request) => ({
      data: await targets.replaceTarget(ctx, currentUser(request).userId, request.body),
    }),
  });
}
