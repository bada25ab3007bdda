import {
  dataEnvelope,
  ZAvailableTariffs,
  ZBillingState,
  ZCheckoutLink,
  ZCheckoutLinkQuery,
  ZCheckoutSession,
  ZCheckoutSessionQuery,
  ZLocalPayBody,
  ZPortalLink,
  ZTariffsInfo,
  ZTariffsInfoQuery,
} from '@perimeter/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../lib/errors.ts';
import type { AppContext } from '../../server/context.ts';
import { currentUser } from '../../server/plugins/auth.ts';
import { payLocal } from './billing-local.ts';
import * as billing from './billing-service.ts';
import { stripeClient } from './billing-stripe.ts';
import * as webhook from './billing-stripe-webhook.ts';

const tags = ['billing'];
const security = [{ bearer: [] }];

export async function billingRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const signedIn = { onRequest: [app.requireUser] };

  r.get('/users/get_tariffs_info', {
    ...signedIn,
    schema: {
      operationId: 'getTariffsInfo',
      tags,
      security,
      querystring: ZTariffsInfoQuery,
      response: { 200: dataEnvelope(ZTariffsInfo) },
    },
    handler: async (request) => ({ data: billing.tariffsInfo(ctx, request.query.tariffs_types) }),
  });

  r.get('/users/get_available_tariffs', {
    ...signedIn,
    schema: {
      operationId: 'getAvailableTariffs',
      tags,
      security,
      response: { 200: dataEnvelope(ZAvailableTariffs) },
    },
    handler: async (request) => ({ data: await billing.availableTariffs(ctx, currentUser(request).userId) }),
  });

  r.get('/users/get_billing_portal_link', {
    ...signedIn,
    schema: {
      operationId: 'getBillingPortalLink',
      tags,
      security,
      response: { 200: dataEnvelope(ZPortalLink) },
    },
    handler: async (request) => ({ data: await billing.portalLink(ctx, currentUser(request).userId) }),
  });

  r.get('/users/get_checkout_sessions_link', {
    ...signedIn,
    schema: {
      operationId: 'getCheckoutSessionsLink',
      tags,
      security,
      querystring: ZCheckoutLinkQuery,
      response: { 200: dataEnvelope(ZCheckoutLink) },
    },
    handler: async (request) => ({
      data: await billing.checkoutLink(ctx, currentUser(request).userId, request.query),
    }),
  });

  r.get('/users/billing/checkout_session', {
    ...signedIn,
    schema: {
      operationId: 'getCheckoutSession',
      tags,
      security,
      querystring: ZCheckoutSessionQuery,
      response: { 200: dataEnvelope(ZCheckoutSession) },
    },
    handler: async (request) => ({
      data: await billing.getCheckout(ctx, currentUser(request).userId, request.query.session_id),
    }),
  });

  r.post('/users/billing/local_pay', {
    ...signedIn,
    schema: {
      operationId: 'payLocalCheckout',
      tags,
      security,
      body: ZLocalPayBody,
      response: { 200: dataEnvelope(ZCheckoutSession) },
    },
    handler: async (request) => ({
      data: await payLocal(ctx, currentUser(request).userId, request.body),
    }),
  });

  r.get('/users/billing/state', {
    ...signedIn,
    schema: {
      operationId: 'getBillingState',
      tags,
      security,
      response: { 200: dataEnvelope(ZBillingState) },
    },
    handler: async (request) => ({ data: await billing.billingState(ctx, currentUser(request).userId) }),
  });

  r.post('/users/billing/cancel_subscription', {
    ...signedIn,
    schema: {
      operationId: 'cancelSubscription',
      tags,
      security,
      response: { 200: dataEnvelope(ZBillingState) },
    },
    handler: async (request) => ({
      data: await billing.cancelSubscription(ctx, currentUser(request).userId),
    }),
  });

  // The Stripe webhook needs the exact bytes for the signature: its own JSON parser in its own scope.
  await app.register(async (hook) => {
    hook.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) =>
      done(null, body),
    );
    const stripe = stripeClient(ctx.config.env);
    hook.withTypeProvider<ZodTypeProvider>().post('/billing/stripe/webhook', {
      schema: {
        operationId: 'stripeWebhook',
        tags,
        response: { 200: z.object({ received: z.boolean(), outcome: z.string() }) },
      },
      config: { rateLimit: false },
      handler: async (request) => {
        const secret = ctx.config.env.STRIPE_WEBHOOK_SECRET;
        if (!secret || !ctx.config.env.STRIPE_SECRET_KEY) throw webhook.webhookNotConfigured();
        const signature = request.headers['stripe-signature'];
        if (typeof signature !== 'string' || !Buffer.isBuffer(request.body))
          throw new AppError(400, 'validation_error', 'Missing Stripe signature.');
        let event: webhook.StripeEventLike;
        try {
          event = stripe.webhooks.constructEvent(request.body, signature, secret) as webhook.StripeEventLike;
        } catch {
          throw new AppError(400, 'validation_error', 'Invalid Stripe signature.');
        }
        const outcome = await webhook.handleStripeEvent(ctx, event);
        request.log.info({ eventId: event.id, type: event.type, outcome }, 'stripe webhook');
        return { received: true, outcome };
      },
    });
  });
}
