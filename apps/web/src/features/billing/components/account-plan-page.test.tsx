import type { TBillingState } from '@perimeter/contracts';
import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeUser, renderApp, signedIn } from '../../../test/render.tsx';
import { AccountPlanPage } from './account-plan-page.tsx';

afterEach(() => vi.unstubAllGlobals());

function state(plan: TBillingState['plan'], usage: Partial<TBillingState['usage']> = {}): TBillingState {
  return {
    plan,
    provider: 'local',
    currency: 'usd',
    subscription: null,
    card: null,
    invoices: [],
    usage: { domains: 1, external_ips: 0, scans_this_month: 2, ...usage },
  };
}

/** The API at the HTTP boundary: only the billing state is read by this page. */
function stubState(data: TBillingState) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (req: Request) => {
      const url = new URL(req.url);
      if (url.pathname === '/api/users/billing/state') return Response.json({ data });
      return Response.json({ detail: `unexpected ${url.pathname}`, code: 'not_found' }, { status: 404 });
    }),
  );
}

/** The limits table as label → value. */
async function limitRows() {
  const table = await screen.findByRole('table', { name: 'Limits and usage' });
  return Object.fromEntries(
    within(table)
      .getAllByRole('row')
      .map((row) => [
        within(row).getByRole('rowheader').textContent,
        within(row).getByRole('cell').textContent,
      ]),
  );
}

const render = (plan: TBillingState['plan']) =>
  renderApp(<AccountPlanPage />, {
    route: '/account/plan',
    auth: signedIn(makeUser({ tariffs: [{ key: plan, name: plan }] })),
  });

describe('account plan page', () => {
  it('try_it: the one-time scan and the paid scans left, not a monthly allowance', async () => {
    stubState(state('try_it', { one_time_scans_left: 2 }));
    render('try_it');
    const rows = await limitRows();
    expect(rows.Scans).toBe('One-time scan: one scan per payment');
    expect(rows['Paid scans left']).toBe('2');
    expect(rows).not.toHaveProperty('Scans this month');
    expect(screen.queryByText(/by request/)).not.toBeInTheDocument();
    expect(screen.queryByText(/No paid scan is left/)).not.toBeInTheDocument();
  });

  it('try_it with no paid scan left says the next scan asks for a card', async () => {
    stubState(state('try_it', { one_time_scans_left: 0 }));
    render('try_it');
    const rows = await limitRows();
    expect(rows['Paid scans left']).toBe('0');
    expect(screen.getByRole('alert')).toHaveTextContent(
      'No paid scan is left: the next scan asks for a card when you start it.',
    );
  });

  it('a monthly plan shows the scans of this month against its allowance', async () => {
    stubState(state('starter'));
    render('starter');
    const rows = await limitRows();
    expect(rows['Scans this month']).toBe('2 / 4');
    expect(rows).not.toHaveProperty('Paid scans left');
    expect(rows).not.toHaveProperty('Scans');
  });
});
