import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { unauthenticated } from '../../lib/errors.ts';
import { type AccessClaims, verifyAccessToken } from '../../modules/auth/auth-fns.ts';
import { isRefreshFamilyLive } from '../../modules/auth/auth-repo.ts';
import type { AppContext } from '../context.ts';

declare module 'fastify' {
  interface FastifyRequest {
    auth: AccessClaims | null;
  }
  interface FastifyInstance {
    /** onRequest hook for routes that need a signed-in user. */
    requireUser: (request: FastifyRequest) => Promise<void>;
  }
}

/** The signed-in user of a request that passed `requireUser`. */
export function currentUser(request: FastifyRequest): AccessClaims {
  if (!request.auth) throw unauthenticated();
  return request.auth;
}

export const authPlugin = fp(async (app: FastifyInstance, { ctx }: { ctx: AppContext }) => {
  app.decorateRequest('auth', null);
  app.decorate('requireUser', async (request: FastifyRequest) => {
    const header = request.headers.authorization ?? '';
    const match = /^Bearer ([A-Za-z0-9_.-]{10,4096})$/.exec(header);
    if (!match) throw unauthenticated();
    const claims = await verifyAccessToken(match[1]!, ctx.config.secrets.jwtSecret);
    // A signed-out or revoked session ends its access tokens at once, not when they expire.
    if (!claims || !(await isRefreshFamilyLive(ctx.db, claims.familyId))) {
      throw unauthenticated('Your session has expired. Sign in again.');
    }
    request.auth = claims;
  });
});
