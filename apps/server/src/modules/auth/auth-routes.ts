import {
  dataEnvelope,
  type TLanguage,
  ZAgreementConfirmBody,
  ZConfirmEmailParams,
  ZLoginBody,
  ZLoginCodeBody,
  ZLoginResponse,
  ZOk,
  ZPasswordChangeBody,
  ZPasswordResetBody,
  ZPasswordResetConfirmBody,
  ZPasswordResetConfirmParams,
  ZRecoveryCodesResponse,
  ZRegistrationBody,
  ZResendEmailBody,
  ZSessionResponse,
  ZTokenPair,
  ZTokenRefreshBody,
  ZTotpCodeBody,
  ZTwoFactorActivateResponse,
  ZTwoFactorDeactivateBody,
  ZUpdateUserBody,
  ZUser,
} from '@perimeter/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../server/context.ts';
import { currentUser } from '../../server/plugins/auth.ts';
import { authRouteLimit } from '../limits/limits-service.ts';
import * as auth from './auth-service.ts';

export function requestLanguage(request: FastifyRequest): TLanguage {
  const header = request.headers['accept-language'];
  return typeof header === 'string' && /^\s*ru\b/i.test(header) ? 'ru' : 'en';
}

const okResponse = { 200: dataEnvelope(ZOk) };

export async function authRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  /**
   * Sensitive endpoints: `RATE_LIMIT_AUTH_PER_MINUTE` per route and client address, counted in
   * PostgreSQL (shared by every API process); sign-ins also count failures per account.
   */
  const limited = { preHandler: [authRouteLimit(ctx)] };
  const signedIn = { onRequest: [app.requireUser] };

  r.post('/users/auth/registration/', {
    ...limited,
    schema: {
      operationId: 'register',
      tags: ['auth'],
      body: ZRegistrationBody,
      response: { 201: dataEnvelope(ZOk) },
    },
    handler: async (request, reply) => {
      reply.status(201);
      return { data: await auth.register(ctx, request.body, requestLanguage(request)) };
    },
  });

  r.post('/users/auth/registration/resend-email/', {
    ...limited,
    schema: {
      operationId: 'resendVerificationEmail',
      tags: ['auth'],
      body: ZResendEmailBody,
      response: okResponse,
    },
    handler: async (request) => ({ data: await auth.resendVerification(ctx, request.body.email) }),
  });

  r.post('/account/confirm-email/verify/:key/', {
    ...limited,
    schema: {
      operationId: 'confirmEmail',
      tags: ['auth'],
      params: ZConfirmEmailParams,
      response: okResponse,
    },
    handler: async (request) => ({ data: await auth.verifyEmail(ctx, request.params.key) }),
  });

  r.post('/users/auth/login/', {
    ...limited,
    schema: {
      operationId: 'login',
      tags: ['auth'],
      body: ZLoginBody,
      response: { 200: dataEnvelope(ZLoginResponse) },
    },
    handler: async (request) => ({
      data: await auth.login(ctx, request.body.email, request.body.password, request.ip),
    }),
  });

  r.post('/users/auth/login/code/', {
    ...limited,
    schema: {
      operationId: 'loginWithCode',
      tags: ['auth'],
      body: ZLoginCodeBody,
      response: { 200: dataEnvelope(ZSessionResponse) },
    },
    handler: async (request) => ({
      data: await auth.loginWithCode(ctx, request.body.ephemeral_token, request.body.code, request.ip),
    }),
  });

  for (const url of ['/users/token/refresh/', '/users/token/refresh']) {
    r.post(url, {
      schema: {
        operationId: url.endsWith('/') ? 'refreshToken' : 'refreshTokenNoSlash',
        tags: ['auth'],
        body: ZTokenRefreshBody,
        response: { 200: dataEnvelope(ZTokenPair) },
      },
      handler: async (request) => ({ data: await auth.refreshSession(ctx, request.body.refresh) }),
    });
  }

  r.post('/users/auth/logout/', {
    schema: { operationId: 'logout', tags: ['auth'], body: ZTokenRefreshBody, response: okResponse },
    handler: async (request) => ({ data: await auth.logout(ctx, request.body.refresh) }),
  });

  for (const url of ['/users/user', '/users/user/']) {
    r.get(url, {
      ...signedIn,
      config: { onboarding: true },
      schema: {
        operationId: url.endsWith('/') ? 'getCurrentUser' : 'getCurrentUserNoSlash',
        tags: ['users'],
        security: [{ bearer: [] }],
        response: { 200: dataEnvelope(ZUser) },
      },
      handler: async (request) => ({ data: await auth.getUser(ctx, currentUser(request).userId) }),
    });
  }

  r.put('/users/user/', {
    ...signedIn,
    config: { onboarding: true },
    schema: {
      operationId: 'updateCurrentUser',
      tags: ['users'],
      security: [{ bearer: [] }],
      body: ZUpdateUserBody,
      response: { 200: dataEnvelope(ZUser) },
    },
    handler: async (request) => ({
      data: await auth.updateProfile(ctx, currentUser(request).userId, request.body),
    }),
  });

  r.post('/users/agreement_confirm', {
    ...signedIn,
    config: { onboarding: true },
    schema: {
      operationId: 'confirmAgreement',
      tags: ['users'],
      security: [{ bearer: [] }],
      body: ZAgreementConfirmBody,
      response: { 200: dataEnvelope(ZUser) },
    },
    handler: async (request) => ({ data: await auth.confirmAgreement(ctx, currentUser(request).userId) }),
  });

  r.post('/users/auth/app/activate/', {
    ...signedIn,
    config: { onboarding: true },
    schema: {
      operationId: 'startTwoFactor',
      tags: ['two-factor'],
      security: [{ bearer: [] }],
      response: { 200: dataEnvelope(ZTwoFactorActivateResponse) },
    },
    handler: async (request) => ({ data: await auth.startTwoFactor(ctx, currentUser(request).userId) }),
  });

  r.post('/users/auth/app/activate/confirm/', {
    ...signedIn,
    config: { onboarding: true },
    ...limited,
    schema: {
      operationId: 'confirmTwoFactor',
      tags: ['two-factor'],
      security: [{ bearer: [] }],
      body: ZTotpCodeBody,
      response: { 200: dataEnvelope(ZRecoveryCodesResponse) },
    },
    handler: async (request) => ({
      data: await auth.confirmTwoFactor(ctx, currentUser(request).userId, request.body.code),
    }),
  });

  r.post('/users/auth/app/deactivate/', {
    ...signedIn,
    config: { onboarding: true },
    ...limited,
    schema: {
      operationId: 'disableTwoFactor',
      tags: ['two-factor'],
      security: [{ bearer: [] }],
      body: ZTwoFactorDeactivateBody,
      response: okResponse,
    },
    handler: async (request) => ({
      data: await auth.disableTwoFactor(ctx, currentUser(request).userId, request.body.code),
    }),
  });

  r.post('/users/auth/password/change/', {
    ...signedIn,
    config: { onboarding: true },
    ...limited,
    schema: {
      operationId: 'changePassword',
      tags: ['auth'],
      security: [{ bearer: [] }],
      body: ZPasswordChangeBody,
      response: okResponse,
    },
    handler: async (request) => {
      const { userId, familyId } = currentUser(request);
      return { data: await auth.changePassword(ctx, userId, familyId, request.body) };
    },
  });

  r.post('/users/auth/password/reset/', {
    ...limited,
    schema: {
      operationId: 'requestPasswordReset',
      tags: ['auth'],
      body: ZPasswordResetBody,
      response: okResponse,
    },
    handler: async (request) => ({ data: await auth.requestPasswordReset(ctx, request.body.email) }),
  });

  r.post('/account/password/reset/confirm/:uid/:token/', {
    ...limited,
    schema: {
      operationId: 'confirmPasswordReset',
      tags: ['auth'],
      params: ZPasswordResetConfirmParams,
      body: ZPasswordResetConfirmBody,
      response: okResponse,
    },
    handler: async (request) => ({
      data: await auth.confirmPasswordReset(
        ctx,
        request.params.uid,
        request.params.token,
        request.body.new_password1,
      ),
    }),
  });
}
