import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError, unauthenticated } from '../../lib/errors.ts';
import { type AccessClaims, verifyAccessToken } from '../../modules/auth/auth-fns.ts';
import { sessionState } from '../../modules/auth/auth-repo.ts';
import type { AppContext } from '../context.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Open to a signed-in user whose e-mail address is not verified yet (profile and onboarding). */
    onboarding?: boolean;
  }
  interface FastifyRequest {
    auth: SignedIn | null;
  }
  interface FastifyInstance {
    /** onRequest hook for routes that need a signed-in user. */
    requireUser: (request: FastifyRequest) => Promise<void>;
  }
}

/** A request's signed-in user: the token's claims and the plan read with the session. */
export interface SignedIn extends AccessClaims {
  plan: string;
  /** The request's round trip on the change feed (src/db/changes.ts), for its other memos. */
  synced?: Promise<boolean>;
}

/** The signed-in user of a request that passed `requireUser`. */
export function currentUser(request: FastifyRequest): SignedIn {
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
    if (!claims) throw unauthenticated('Your session has expired. Sign in again.');
    const synced = ctx.changes.sync();
    const session = await sessionState(
      ctx.db,
      claims.userId,
      claims.familyId,
      ctx.sessionStates.memo(claims.userId, synced),
    );
    // A signed-out or revoked session ends its access tokens at once, not when they expire.
    if (!session.live) throw unauthenticated('Your session has expired. Sign in again.');
    // The onboarding gate holds on the server too: until the address is confirmed, an account
    // reads its profile and finishes onboarding, nothing else.
    if (!session.emailVerified && request.routeOptions.config.onboarding !== true) {
      throw new AppError(
        403,
        'forbidden',
        'Confirm your e-mail address first: open the link we sent you (or ask for a new one), then try again.',
      );
    }
    request.auth = { userId: claims.userId, familyId: claims.familyId, plan: session.plan, synced };
  });
});
