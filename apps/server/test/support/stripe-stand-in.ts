import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for api.stripe.com (STRIPE_API_BASE points at it) and the Stripe objects the
 * billing tests send back as webhook events.
 */
export interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  form: URLSearchParams;
  auth: string | undefined;
}
export const recorded: Recorded[] = [];
let sessionCounter = 0;
let customerCounter = 0;
const stand = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => {
    body += c;
  });
  req.on('end', () => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    recorded.push({
      method: req.method ?? '',
      path: url.pathname,
      query: url.searchParams,
      form: new URLSearchParams(body),
      auth: req.headers.authorization,
    });
    const send = (status: number, json: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(json));
    };
    if (req.method === 'POST' && url.pathname === '/v1/customers') {
      customerCounter += 1;
      return send(200, { id: `cus_test_${customerCounter}`, object: 'customer' });
    }
    if (req.method === 'GET' && url.pathname === '/v1/promotion_codes') {
      const code = url.searchParams.get('code');
      if (code === 'BOOM') return send(500, { error: { type: 'api_error', message: 'stand-in failure' } });
      return send(200, {
        object: 'list',
        url: '/v1/promotion_codes',
        has_more: false,
        data:
          code === 'SAVE20'
            ? [{ id: 'promo_1', object: 'promotion_code', code: 'SAVE20', active: true }]
            : [],
      });
    }
    if (req.method === 'POST' && url.pathname === '/v1/checkout/sessions') {
      sessionCounter += 1;
      const id = `cs_test_${sessionCounter}`;
      return send(200, { id, object: 'checkout.session', url: `https://checkout.stripe.test/c/${id}` });
    }
    if (req.method === 'POST' && url.pathname === '/v1/billing_portal/sessions')
      return send(200, {
        id: 'bps_1',
        object: 'billing_portal.session',
        url: 'https://billing.stripe.test/p/1',
      });
    if (req.method === 'POST' && url.pathname.startsWith('/v1/subscriptions/'))
      return send(200, {
        id: url.pathname.split('/').pop(),
        object: 'subscription',
        cancel_at_period_end: true,
      });
    return send(404, {
      error: { type: 'invalid_request_error', message: `No stand-in for ${url.pathname}` },
    });
  });
});

/** Starts the stand-in on loopback; returns its base URL. */
export async function startStripeStandIn(): Promise<{ url: string; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => stand.listen(0, '127.0.0.1', resolve));
  const { port } = stand.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => stand.close(() => resolve())),
  };
}

/** The last request the stand-in received on `path`. */
export const last = (path: string) => [...recorded].reverse().find((r) => r.path === path) as Recorded;

let eventCounter = 0;
/** A Stripe event wrapping `object`. */
export function event(type: string, object: Record<string, unknown>, created: number, id?: string) {
  eventCounter += 1;
  return { id: id ?? `evt_test_${eventCounter}`, object: 'event', type, created, data: { object } };
}

/** A yearly starter subscription of `userId`, as Stripe sends it. */
export function subscription(userId: string, over: Record<string, unknown> = {}) {
  return {
    id: 'sub_1',
    object: 'subscription',
    customer: 'cus_test_1',
    status: 'active',
    cancel_at_period_end: false,
    metadata: { user_id: userId, plan: 'starter', period: 'yearly' },
    items: {
      object: 'list',
      data: [
        {
          current_period_start: 1_790_000_000,
          current_period_end: 1_821_536_000,
          price: { recurring: { interval: 'year' } },
        },
      ],
    },
    ...over,
  };
}
