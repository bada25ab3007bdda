import type { TBillingState, TScan, TTarget } from '@perimeter/contracts';
import { screen, waitFor } from '@testing-library/react';
import type userEvent from '@testing-library/user-event';
import { Route, Routes, useParams } from 'react-router';
import { expect, vi } from 'vitest';
import { makeUser, renderApp, signedIn } from '../../../test/render.tsx';
import { NewScanPage } from '../components/new-scan-page.tsx';

/** The new-scan stepper's test data, a fake API and the page in its routes (new-scan-*.test.tsx). */
const zero = { critical: 0, high: 0, medium: 0, low: 0, informational: 0, unknown: 0 };
export const ID1 = '11111111-1111-4111-8111-111111111111';
export const ID2 = '22222222-2222-4222-8222-222222222222';
export const SCAN_ID = '33333333-3333-4333-8333-333333333333';

export function target(id: string, name: string, extra: Partial<TTarget> = {}): TTarget {
  return {
    user_target_id: id,
    target_type: 'domain',
    target: name,
    display_name: name,
    main_domain: name,
    ip_count: 0,
    disabled: false,
    verified: false,
    verified_at: null,
    created_at: '2026-11-01T10:00:00Z',
    ...extra,
  };
}

export function scan(extra: Partial<TScan> = {}): TScan {
  return {
    id: SCAN_ID,
    status: 'created',
    target_type: 'domain',
    targets: [{ user_target_id: ID1, target: 'lab.example.com', target_type: 'domain' }],
    scan_type: 'full',
    custom_scan_config: false,
    config: { classes: [], subclasses: [] },
    created_at: '2026-11-22T10:00:00Z',
    started_at: null,
    finished_at: null,
    stage: null,
    percent: 0,
    message: null,
    severity_counts: zero,
    partial: null,
    template_sets: [],
    ...extra,
  };
}

export function billing(oneTimeScansLeft: number, invoices: TBillingState['invoices'] = []): TBillingState {
  return {
    plan: 'try_it',
    provider: 'local',
    currency: 'usd',
    subscription: null,
    card: null,
    invoices,
    usage: { domains: 1, external_ips: 0, scans_this_month: 0, one_time_scans_left: oneTimeScansLeft },
  };
}

export const paidInvoice: TBillingState['invoices'][number] = {
  id: 'inv1',
  plan: 'try_it',
  amount: 20000,
  currency: 'usd',
  status: 'paid',
  description: 'Try it! (one-time)',
  card: 'visa •••• 4242',
  created_at: '2026-11-21T09:00:00Z',
};

export type TCall = { method: string; path: string; body: unknown };
type TOverrides = Partial<Record<string, (req: Request, body: unknown) => Response>>;

/** A small stand-in for the API at the HTTP boundary: records every call with its JSON body. */
export function stubApi({
  targets = [] as TTarget[],
  overrides = {} as TOverrides,
  billingState = billing(0) as TBillingState | (() => TBillingState),
} = {}) {
  const calls: TCall[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (req: Request) => {
      const url = new URL(req.url);
      const text = req.method === 'GET' ? '' : await req.text();
      const body: unknown = text ? JSON.parse(text) : null;
      const path = url.pathname.replace(/^\/api/, '');
      calls.push({ method: req.method, path: `${path}${url.search}`, body });
      const override = overrides[path];
      if (override) return override(req, body);
      if (path === '/main/user_target/get_targets')
        return Response.json({
          data: {
            domain: targets.filter((x) => x.target_type === 'domain'),
            peer: targets.filter((x) => x.target_type === 'peer'),
            network: targets.filter((x) => x.target_type === 'network'),
          },
        });
      if (path === '/main/user_target/add_targets') {
        const item = (body as { targets: { target: string; target_type: TTarget['target_type'] }[] })
          .targets[0];
        return Response.json(
          {
            data: {
              added: [target(ID2, item?.target ?? '', { target_type: item?.target_type ?? 'domain' })],
            },
          },
          { status: 201 },
        );
      }
      if (path === '/main/user_target/get_verification_txt')
        return Response.json({
          data: {
            user_target_id: ID2,
            target_type: 'domain',
            token: 'tok',
            value: 'perimeter-verification=tok',
            record_names: ['new.example.com', '_perimeter.new.example.com'],
            file_urls: [],
            instructions: 'Publish it.',
          },
        });
      if (path === '/main/create_abstract_scan') return Response.json({ data: scan() }, { status: 201 });
      if (path === '/main/start_created_abstract_scan')
        return Response.json({ data: scan({ status: 'pending' }) });
      if (path === '/users/billing/state')
        return Response.json({ data: typeof billingState === 'function' ? billingState() : billingState });
      return Response.json({ detail: `unexpected ${path}`, code: 'not_found' }, { status: 404 });
    }),
  );
  return calls;
}

function ScanDetail() {
  const { scanId } = useParams();
  return <p>scan detail {scanId}</p>;
}

export function renderPage(plan: string | null = 'business') {
  const tariffs = plan ? [{ key: plan, name: plan }] : [];
  return renderApp(
    <Routes>
      <Route path="/scans" element={<NewScanPage />} />
      <Route path="/scans/past-scans/:scanId" element={<ScanDetail />} />
    </Routes>,
    { route: '/scans', auth: signedIn(makeUser({ tariffs })) },
  );
}

export const heading = () => screen.getAllByRole('heading', { level: 2 })[0];
export const posts = (calls: TCall[], path: string) =>
  calls.filter((c) => c.method === 'POST' && c.path === path);

/** From the target step with a verified registered target to the scan-type step. */
export async function pickVerified(user: ReturnType<typeof userEvent.setup>) {
  await user.click(await screen.findByRole('radio', { name: /lab\.example\.com/ }));
  await user.click(screen.getByRole('button', { name: 'Next' }));
  await waitFor(() => expect(heading()).toHaveTextContent('Full or custom scan'));
}
