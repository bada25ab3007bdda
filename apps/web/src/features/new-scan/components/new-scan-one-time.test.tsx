import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { setUpPageTests } from '../../../test/page-setup.ts';
import { makeUser } from '../../../test/render.tsx';
import {
  billing,
  heading,
  ID1,
  paidInvoice,
  pickVerified,
  posts,
  renderPage,
  SCAN_ID,
  scan,
  stubApi,
  target,
} from '../testing/new-scan-fixtures.tsx';

// The new-scan stepper on the try_it plan: the card step for a one-time scan.
setUpPageTests();

// Typing-heavy flows: jsdom and user-event are slow on a shared machine.
describe('new scan stepper: try_it one-time scans', { timeout: 30_000 }, () => {
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
