import type { TBillingState, TScan, TTarget } from '@perimeter/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes, useParams } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeUser, renderApp, signedIn } from '../../../test/render.tsx';
import { NewScanPage } from './new-scan-page.tsx';

afterEach(() => vi.unstubAllGlobals());

const zero = { critical: 0, high: 0, medium: 0, low: 0, informational: 0, unknown: 0 };
const ID1 = '11111111-1111-4111-8111-111111111111';
const ID2 = '22222222-2222-4222-8222-222222222222';
const SCAN_ID = '33333333-3333-4333-8333-333333333333';

function target(id: string, name: string, extra: Partial<TTarget> = {}): TTarget {
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

function scan(extra: Partial<TScan> = {}): TScan {
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

function billing(oneTimeScansLeft: number, invoices: TBillingState['invoices'] = []): TBillingState {
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

const paidInvoice: TBillingState['invoices'][number] = {
  id: 'inv1',
  plan: 'try_it',
  amount: 20000,
  currency: 'usd',
  status: 'paid',
  description: 'Try it! (one-time)',
  card: 'visa •••• 4242',
  created_at: '2026-11-21T09:00:00Z',
};

type TCall = { method: string; path: string; body: unknown };
type TOverrides = Partial<Record<string, (req: Request, body: unknown) => Response>>;

/** A small stand-in for the API at the HTTP boundary: records every call with its JSON body. */
function stubApi({
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

function renderPage(plan: string | null = 'business') {
  const tariffs = plan ? [{ key: plan, name: plan }] : [];
  return renderApp(
    <Routes>
      <Route path="/scans" element={<NewScanPage />} />
      <Route path="/scans/past-scans/:scanId" element={<ScanDetail />} />
    </Routes>,
    { route: '/scans', auth: signedIn(makeUser({ tariffs })) },
  );
}

const heading = () => screen.getAllByRole('heading', { level: 2 })[0];
const posts = (calls: TCall[], path: string) => calls.filter((c) => c.method === 'POST' && c.path === path);

/** From the target step with a verified registered target to the scan-type step. */
async function pickVerified(user: ReturnType<typeof userEvent.setup>) {
  await user.click(await screen.findByRole('radio', { name: /lab\.example\.com/ }));
  await user.click(screen.getByRole('button', { name: 'Next' }));
  await waitFor(() => expect(heading()).toHaveTextContent('Full or custom scan'));
}

// Typing-heavy flows: jsdom and user-event are slow on a shared machine.
describe('new scan stepper', { timeout: 30_000 }, () => {
  it('checks a new target as it is typed, for the chosen type, and sends only a valid one', async () => {
    const calls = stubApi();
    const user = userEvent.setup();
    renderPage();
    // No targets yet: the add form is the default.
    const field = await screen.findByRole('textbox', { name: /Domain name/ });
    await user.type(field, 'exa mple');
    expect(await screen.findByText(/This is not a valid domain name/)).toBeInTheDocument();
    await user.clear(field);
    await user.type(field, '203.0.113.7');
    expect(await screen.findByText(/This is an address: choose Peer/)).toBeInTheDocument();

    await user.click(screen.getByRole('radio', { name: 'Peer (IP address)' }));
    expect(screen.queryByText(/This is an address/)).not.toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: /IP address/ })).toHaveAccessibleDescription(
      /One IPv4 or IPv6/,
    );

    await user.click(screen.getByRole('radio', { name: 'Network' }));
    expect(await screen.findByText(/Write the network as address\/prefix/)).toBeInTheDocument();
    const net = screen.getByRole('textbox', { name: /Network/ });
    await user.clear(net);
    await user.type(net, '10.0.0.0/8');
    expect(await screen.findByText(/The network is too large: at most 4096 addresses/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Add target' }));
    expect(posts(calls, '/main/user_target/add_targets')).toHaveLength(0);

    await user.click(screen.getByRole('radio', { name: 'Domain' }));
    const domain = screen.getByRole('textbox', { name: /Domain name/ });
    await user.clear(domain);
    await user.type(domain, 'new.example.com');
    await waitFor(() => expect(domain).toHaveAttribute('aria-invalid', 'false'));
    await user.click(screen.getByRole('button', { name: 'Add target' }));
    await waitFor(() => expect(heading()).toHaveTextContent('Step 2 of 4: Verification'));
    expect(posts(calls, '/main/user_target/add_targets').map((c) => c.body)).toEqual([
      { targets: [{ target_type: 'domain', target: 'new.example.com' }] },
    ]);
  });

  it('shows the server detail when adding a target is refused (plan limit)', async () => {
    stubApi({
      overrides: {
        '/main/user_target/add_targets': () =>
          Response.json(
            {
              code: 'forbidden',
              detail: 'Plan limit reached: the Starter plan allows 1 domain (you have 1).',
            },
            { status: 403 },
          ),
      },
    });
    const user = userEvent.setup();
    renderPage('starter');
    await user.type(await screen.findByRole('textbox', { name: /Domain name/ }), 'second.example.com');
    await user.click(screen.getByRole('button', { name: 'Add target' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('You are not allowed to do this.');
    expect(alert).toHaveTextContent('Plan limit reached: the Starter plan allows 1 domain (you have 1).');
    expect(heading()).toHaveTextContent('Step 1 of 4');
  });

  it('verification: the record to publish, a failed check with what to fix, then a passing check', async () => {
    let checks = 0;
    const calls = stubApi({
      targets: [target(ID2, 'new.example.com')],
      overrides: {
        '/main/user_target/check_verification': () => {
          checks += 1;
          return Response.json({
            data:
              checks === 1
                ? {
                    user_target_id: ID2,
                    verified: false,
                    detail: 'Verification record not found: new.example.com: no TXT record.',
                    checked_at: '2026-11-22T10:00:00Z',
                  }
                : {
                    user_target_id: ID2,
                    verified: true,
                    detail: 'TXT record found on new.example.com.',
                    checked_at: '2026-11-22T10:01:00Z',
                  },
          });
        },
      },
    });
    const user = userEvent.setup();
    renderPage();
    await user.click(await screen.findByRole('radio', { name: /new\.example\.com/ }));
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByRole('textbox', { name: 'Record value' })).toHaveValue(
      'perimeter-verification=tok',
    );
    expect(screen.getByRole('textbox', { name: 'Record name 2' })).toHaveValue('_perimeter.new.example.com');
    const writeText = vi.fn(async () => undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    await user.click(screen.getByRole('button', { name: 'Copy Record value' }));
    expect(writeText).toHaveBeenCalledWith('perimeter-verification=tok');
    expect(await screen.findByText('Record value copied')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();

    await user.click(screen.getByRole('button', { name: 'Check' }));
    expect(await screen.findByText('Not verified yet')).toBeInTheDocument();
    expect(screen.getByText('What to fix')).toBeInTheDocument();
    expect(screen.getByText(/no TXT record/)).toBeInTheDocument();
    expect(screen.getByText(/The value must be exactly the one above/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();

    await user.click(screen.getByRole('button', { name: 'Check' }));
    expect(await screen.findByText('Verification passed')).toBeInTheDocument();
    expect(screen.queryByText('What to fix')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(heading()).toHaveTextContent('Full or custom scan'));
    expect(posts(calls, '/main/user_target/check_verification').map((c) => c.body)).toEqual([
      { target_type: 'domain', user_target_id: ID2 },
      { target_type: 'domain', user_target_id: ID2 },
    ]);
  });

  it('an already verified target skips verification; back returns to the target', async () => {
    const calls = stubApi({ targets: [target(ID1, 'lab.example.com', { verified: true })] });
    const user = userEvent.setup();
    renderPage();
    await pickVerified(user);
    expect(heading()).toHaveTextContent('Step 3 of 4');
    expect(calls.some((c) => c.path.includes('get_verification_txt'))).toBe(false);
    await user.click(screen.getByRole('button', { name: 'Back' }));
    await waitFor(() => expect(heading()).toHaveTextContent('Step 1 of 4: Scanning settings'));
  });

  it('a single registered target is preselected; with two, none is', async () => {
    stubApi({ targets: [target(ID1, 'lab.example.com', { verified: true })] });
    const user = userEvent.setup();
    const view = renderPage();
    expect(await screen.findByRole('radio', { name: /lab\.example\.com/ })).toBeChecked();
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(heading()).toHaveTextContent('Full or custom scan'));
    view.unmount();

    stubApi({ targets: [target(ID1, 'lab.example.com'), target(ID2, 'shop.example.com')] });
    renderPage();
    expect(await screen.findByRole('radio', { name: /lab\.example\.com/ })).not.toBeChecked();
    expect(screen.getByRole('radio', { name: /shop\.example\.com/ })).not.toBeChecked();
  });

  it('locks what the plan lacks and says why', async () => {
    stubApi({ targets: [target(ID1, 'lab.example.com', { verified: true })] });
    const user = userEvent.setup();
    const view = renderPage(null); // no tariff: the trial plan, as the server reads it
    await pickVerified(user);
    const custom = screen.getByRole('radio', { name: 'Custom scan' });
    expect(custom).toBeDisabled();
    expect(custom).toHaveAccessibleDescription(/The Trial scan plan does not include custom scans/);
    expect(
      screen.getByRole('checkbox', { name: 'Known-exploit database (CVE)' }),
    ).toHaveAccessibleDescription(/Not included in the Trial scan plan/);
    expect(screen.getByRole('checkbox', { name: 'Leaked credentials' })).toHaveAccessibleDescription(
      /Not included in the Trial scan plan/,
    );
    expect(screen.getByRole('checkbox', { name: 'Vulnerability scanner' })).toBeChecked();
    expect(screen.getByRole('checkbox', { name: 'Leaked credentials' })).not.toBeChecked();
    expect(screen.getAllByRole('link', { name: 'Change plan' })[0]).toHaveAttribute(
      'href',
      '/account/plan/choose-plan',
    );
    view.unmount();

    renderPage('business');
    await pickVerified(user);
    expect(screen.getByRole('radio', { name: 'Custom scan' })).toBeEnabled();
    expect(screen.queryByText(/Not included in the/)).not.toBeInTheDocument();
  });

  it('create only: the custom scan body, no start, then the scan page', async () => {
    const calls = stubApi({ targets: [target(ID1, 'lab.example.com', { verified: true })] });
    const user = userEvent.setup();
    renderPage('business');
    await pickVerified(user);
    await user.click(screen.getByRole('radio', { name: 'Custom scan' }));
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('Choose at least one class or subclass.')).toBeInTheDocument();
    expect(heading()).toHaveTextContent('Step 3 of 4');
    await user.click(screen.getByRole('checkbox', { name: 'Information gathering' }));
    expect(screen.getByRole('checkbox', { name: 'Leaked credentials' })).toBeChecked();
    await user.click(screen.getByRole('checkbox', { name: 'Vulnerability scanner' }));
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(heading()).toHaveTextContent('Step 4 of 4: Review'));
    expect(screen.getByText('Custom scan: Vulnerability scanner, Leaked credentials')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Create only' }));
    expect(await screen.findByText(`scan detail ${SCAN_ID}`)).toBeInTheDocument();
    expect(posts(calls, '/main/create_abstract_scan').map((c) => c.body)).toEqual([
      {
        targets: [{ target_type: 'domain', user_target_id: ID1 }],
        scan_type: 'custom',
        custom_scan_config: {
          classes: ['class_information_gathering'],
          subclasses: ['exploit_scanner', 'leakcheck'],
        },
      },
    ]);
    expect(posts(calls, '/main/start_created_abstract_scan')).toHaveLength(0);
  });

  it('a custom scan with the vulnerability scanner can narrow severities and bring back default-excluded tags', async () => {
    const calls = stubApi({ targets: [target(ID1, 'lab.example.com', { verified: true })] });
    const user = userEvent.setup();
    renderPage('business');
    await pickVerified(user);
    await user.click(screen.getByRole('radio', { name: 'Custom scan' }));
    expect(screen.queryByTestId('template-choice')).toBeNull();
    await user.click(screen.getByRole('checkbox', { name: 'Vulnerability scanner' }));
    const choice = screen.getByTestId('template-choice');
    for (const s of ['Info', 'Unknown', 'Low'])
      await user.click(within(choice).getByRole('checkbox', { name: s }));
    await user.type(
      within(choice).getByRole('textbox', { name: 'Also run tags left out by default' }),
      'Fuzz, dos',
    );
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(heading()).toHaveTextContent('Step 4 of 4: Review'));
    await user.click(screen.getByRole('button', { name: 'Create only' }));
    expect(await screen.findByText(`scan detail ${SCAN_ID}`)).toBeInTheDocument();
    expect(posts(calls, '/main/create_abstract_scan').map((c) => c.body)).toEqual([
      {
        targets: [{ target_type: 'domain', user_target_id: ID1 }],
        scan_type: 'custom',
        custom_scan_config: {
          classes: [],
          subclasses: ['exploit_scanner'],
          templates: { severities: ['critical', 'high', 'medium'], include_tags: ['fuzz', 'dos'] },
        },
      },
    ]);
  });

  it('create and start: a full scan is created, then started by id, then the scan page', async () => {
    const calls = stubApi({ targets: [target(ID1, 'lab.example.com', { verified: true })] });
    const user = userEvent.setup();
    renderPage('starter');
    await pickVerified(user);
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await user.click(await screen.findByRole('button', { name: 'Create and start' }));
    expect(await screen.findByText(`scan detail ${SCAN_ID}`)).toBeInTheDocument();
    const order = calls.filter((c) => c.method === 'POST').map((c) => c.path);
    expect(order).toEqual(['/main/create_abstract_scan', '/main/start_created_abstract_scan']);
    expect(posts(calls, '/main/create_abstract_scan')[0]?.body).toEqual({
      targets: [{ target_type: 'domain', user_target_id: ID1 }],
      scan_type: 'full',
    });
    expect(posts(calls, '/main/start_created_abstract_scan')[0]?.body).toEqual({ id: SCAN_ID });
    // Not a try_it plan: no payment lookups at all.
    expect(calls.some((c) => c.path.startsWith('/users/billing/state'))).toBe(false);
  });

  it('shows the detail of a refused start and keeps the created scan reachable', async () => {
    stubApi({
      targets: [target(ID1, 'lab.example.com', { verified: true })],
      overrides: {
        '/main/start_created_abstract_scan': () =>
          Response.json(
            {
              code: 'forbidden',
              detail: 'Plan limit reached: the Starter plan allows 4 scans per month (4 started this month).',
            },
            { status: 403 },
          ),
      },
    });
    const user = userEvent.setup();
    renderPage('starter');
    await pickVerified(user);
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await user.click(await screen.findByRole('button', { name: 'Create and start' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('the Starter plan allows 4 scans per month (4 started this month)');
    expect(within(alert).getByRole('link', { name: 'Open the scan' })).toHaveAttribute(
      'href',
      `/scans/past-scans/${SCAN_ID}`,
    );
    expect(screen.queryByText(/scan detail/)).not.toBeInTheDocument();
  });

  it('shows a 400 validation detail from create', async () => {
    stubApi({
      targets: [target(ID1, 'lab.example.com', { verified: true })],
      overrides: {
        '/main/create_abstract_scan': () =>
          Response.json(
            {
              code: 'validation_error',
              detail: 'A scan covers targets of one type; create one scan per type.',
            },
            { status: 400 },
          ),
      },
    });
    const user = userEvent.setup();
    renderPage('business');
    await pickVerified(user);
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await user.click(await screen.findByRole('button', { name: 'Create only' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'A scan covers targets of one type; create one scan per type.',
    );
  });

  it('try_it with no paid scan left: the card step comes before the start, even with a paid invoice', async () => {
    // A paid try_it invoice that a scan has used already: only the server's count decides.
    const calls = stubApi({
      targets: [target(ID1, 'lab.example.com', { verified: true })],
      billingState: billing(0, [paidInvoice]),
    });
    const user = userEvent.setup();
    renderPage('try_it');
    await pickVerified(user);
    expect(heading()).toHaveTextContent('Step 3 of 5');
    await user.click(await screen.findByRole('button', { name: 'Next' }));
    await waitFor(() => expect(heading()).toHaveTextContent('Step 4 of 5: Review'));
    expect(screen.queryByRole('button', { name: 'Create and start' })).not.toBeInTheDocument();
    // Creating without a payment would be refused by the server.
    expect(screen.queryByRole('button', { name: 'Create only' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Continue to payment' }));
    await waitFor(() => expect(heading()).toHaveTextContent('Step 5 of 5: Payment'));
    expect(screen.getByRole('button', { name: 'Pay and start the scan' })).toBeInTheDocument();
    expect(screen.getByLabelText('Card number')).toBeInTheDocument();
    expect(posts(calls, '/main/create_abstract_scan')).toHaveLength(0);
    // The old inference read the scan list; the count needs no such lookup.
    expect(calls.some((c) => c.path.startsWith('/main/get_user_abstract_scans_stats'))).toBe(false);
  });

  it('try_it with a paid scan left: no card step, and the count is read again after the creation', async () => {
    let left = 1;
    const calls = stubApi({
      targets: [target(ID1, 'lab.example.com', { verified: true })],
      billingState: () => billing(left),
      overrides: {
        '/main/create_abstract_scan': () => {
          left -= 1;
          return Response.json({ data: scan() }, { status: 201 });
        },
      },
    });
    const user = userEvent.setup();
    renderPage('try_it');
    await pickVerified(user);
    await waitFor(() => expect(heading()).toHaveTextContent('Step 3 of 4'));
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await user.click(await screen.findByRole('button', { name: 'Create and start' }));
    expect(await screen.findByText(`scan detail ${SCAN_ID}`)).toBeInTheDocument();
    expect(posts(calls, '/main/create_abstract_scan')).toHaveLength(1);
    expect(posts(calls, '/main/start_created_abstract_scan')).toHaveLength(1);
    await waitFor(() =>
      expect(calls.filter((c) => c.path === '/users/billing/state').length).toBeGreaterThanOrEqual(2),
    );
  });

  it('try_it: a refused start keeps the created scan and does not ask for the card again', async () => {
    let left = 1;
    const calls = stubApi({
      targets: [target(ID1, 'lab.example.com', { verified: true })],
      billingState: () => billing(left),
      overrides: {
        '/main/create_abstract_scan': () => {
          left = 0;
          return Response.json({ data: scan() }, { status: 201 });
        },
        '/main/start_created_abstract_scan': () =>
          Response.json({ code: 'conflict', detail: 'The scan queue is full.' }, { status: 409 }),
      },
    });
    const user = userEvent.setup();
    renderPage('try_it');
    await pickVerified(user);
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await user.click(await screen.findByRole('button', { name: 'Create and start' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('The scan queue is full.');
    // The billing state is read again (0 left now), yet the created scan needs no new payment.
    await waitFor(() =>
      expect(calls.filter((c) => c.path === '/users/billing/state').length).toBeGreaterThanOrEqual(2),
    );
    expect(heading()).toHaveTextContent('Step 4 of 4: Review');
    expect(screen.queryByRole('button', { name: 'Continue to payment' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Create and start' }));
    await waitFor(() => expect(posts(calls, '/main/start_created_abstract_scan')).toHaveLength(2));
    expect(posts(calls, '/main/create_abstract_scan')).toHaveLength(1);
  });

  it('try_it: paying in the card step creates and starts the scan', async () => {
    let left = 0;
    const calls = stubApi({
      targets: [target(ID1, 'lab.example.com', { verified: true })],
      billingState: () => billing(left),
      overrides: {
        '/users/get_checkout_sessions_link': () =>
          Response.json({ data: { url: 'http://localhost/checkout/lcs_1', session_id: 'lcs_1' } }),
        '/users/billing/local_pay': () => {
          left = 1;
          return Response.json({
            data: {
              id: 'lcs_1',
              provider: 'local',
              plan: 'try_it',
              period: 'monthly',
              mode: 'payment',
              amount: 20000,
              discount: 0,
              currency: 'usd',
              promo_code: null,
              failure_reason: null,
              created_at: '2026-11-22T00:00:00Z',
              status: 'complete',
            },
          });
        },
        '/users/user': () =>
          Response.json({ data: makeUser({ tariffs: [{ key: 'try_it', name: 'Try it!' }] }) }),
        '/main/create_abstract_scan': () => {
          left -= 1;
          return Response.json({ data: scan() }, { status: 201 });
        },
      },
    });
    const user = userEvent.setup();
    renderPage('try_it');
    await pickVerified(user);
    await user.click(await screen.findByRole('button', { name: 'Next' }));
    await user.click(await screen.findByRole('button', { name: 'Continue to payment' }));
    await user.type(screen.getByLabelText('Card number'), '4242424242424242');
    await user.type(screen.getByLabelText('Name on card'), 'Ada');
    await user.type(screen.getByLabelText('Expiry date (MM/YY)'), '1239');
    await user.type(screen.getByLabelText('Last three digits'), '123');
    await user.click(screen.getByRole('button', { name: 'Pay and start the scan' }));
    expect(await screen.findByText(`scan detail ${SCAN_ID}`)).toBeInTheDocument();
    const order = calls.filter((c) => c.method === 'POST').map((c) => c.path);
    expect(order).toEqual([
      '/users/billing/local_pay',
      '/main/create_abstract_scan',
      '/main/start_created_abstract_scan',
    ]);
  });
});
