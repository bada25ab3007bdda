import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeUser, renderApp, signedIn } from '../../../test/render.tsx';
import { OneTimeScanPayment } from './one-time-scan-payment.tsx';

afterEach(() => vi.unstubAllGlobals());

const session = {
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
};

describe('one-time scan card step', () => {
  it.each([
    ['a user choosing try_it', [], 'try_it'],
    [
      'a user already on try_it (no Congratulations again)',
      [{ key: 'try_it' as const, name: 'Try it!' }],
      null,
    ],
  ])(
    'opens a try_it checkout, pays it with the card form and reports the paid session: %s',
    async (_who, tariffs, marker) => {
      const calls: string[] = [];
      vi.stubGlobal(
        'fetch',
        vi.fn(async (req: Request) => {
          const url = new URL(req.url);
          calls.push(`${req.method} ${url.pathname}${url.search}`);
          if (url.pathname.endsWith('/users/get_checkout_sessions_link'))
            return Response.json({ data: { url: 'http://localhost/checkout/lcs_1', session_id: 'lcs_1' } });
          if (url.pathname.endsWith('/users/billing/local_pay')) {
            const body = (await req.json()) as Record<string, unknown>;
            expect(body).toMatchObject({
              session_id: 'lcs_1',
              card_number: '4242 4242 4242 4242',
              cvc: '123',
            });
            return Response.json({ data: { ...session, status: 'complete' } });
          }
          if (url.pathname.startsWith('/api/users/user'))
            return Response.json({ data: makeUser({ tariffs: [{ key: 'try_it', name: 'Try it!' }] }) });
          return Response.json({ detail: 'no', code: 'not_found' }, { status: 404 });
        }),
      );
      const onPaid = vi.fn();
      const user = userEvent.setup();
      renderApp(<OneTimeScanPayment onPaid={onPaid} />, { auth: signedIn(makeUser({ tariffs })) });
      await user.type(screen.getByLabelText('Card number'), '4242424242424242');
      await user.type(screen.getByLabelText('Name on card'), 'Ada');
      await user.type(screen.getByLabelText('Expiry date (MM/YY)'), '1239');
      await user.type(screen.getByLabelText('Last three digits'), '123');
      await user.click(screen.getByRole('button', { name: 'Pay and start the scan' }));
      await waitFor(() => expect(onPaid).toHaveBeenCalledTimes(1));
      expect(onPaid.mock.calls[0]?.[0]).toMatchObject({ status: 'complete', plan: 'try_it' });
      expect(calls[0]).toBe('GET /api/users/get_checkout_sessions_link?plan=try_it&period=monthly');
      expect(localStorage.getItem('tariff')).toBe(marker);
    },
    30_000,
  );

  it('shows the decline reason and does not report a failed payment', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async (req: Request) => {
        const url = new URL(req.url);
        if (url.pathname.endsWith('/users/get_checkout_sessions_link'))
          return Response.json({ data: { url: 'http://localhost/checkout/lcs_1', session_id: 'lcs_1' } });
        return Response.json({
          data: { ...session, status: 'failed', failure_reason: 'Your card was declined.' },
        });
      }),
    );
    const onPaid = vi.fn();
    const user = userEvent.setup();
    renderApp(<OneTimeScanPayment onPaid={onPaid} />, { auth: signedIn(makeUser()) });
    await user.type(screen.getByLabelText('Card number'), '4000000000000002');
    await user.type(screen.getByLabelText('Name on card'), 'Ada');
    await user.type(screen.getByLabelText('Expiry date (MM/YY)'), '1239');
    await user.type(screen.getByLabelText('Last three digits'), '123');
    await user.click(screen.getByRole('button', { name: 'Pay and start the scan' }));
    expect(await screen.findByText('Your card was declined.')).toBeInTheDocument();
    expect(onPaid).not.toHaveBeenCalled();
  }, 30_000);
});
