import { TARIFFS } from '@perimeter/contracts';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../../test/render.tsx';
import { PlanCard } from './plan-card.tsx';

describe('plan cards', () => {
  it('starter: monthly and yearly prices, features, host and subdomain limits, choose action', async () => {
    const onChoose = vi.fn();
    const { rerender } = renderApp(
      <PlanCard
        tariff={TARIFFS.starter}
        period="monthly"
        currency="usd"
        current={false}
        purchasable
        onChoose={onChoose}
      />,
    );
    expect(screen.getByTestId('price-starter')).toHaveTextContent('USD 500');
    const card = screen.getByRole('region', { name: 'Starter' });
    expect(within(card).getByText('4 scans per month (weekly)')).toBeInTheDocument();
    expect(within(card).getByText('Host and Subdomain Limitations:')).toBeInTheDocument();
    expect(within(card).getByText('30 subdomains')).toBeInTheDocument();
    await userEvent.click(within(card).getByRole('button', { name: 'Choose Starter' }));
    expect(onChoose).toHaveBeenCalledTimes(1);
    rerender(
      <PlanCard
        tariff={TARIFFS.starter}
        period="yearly"
        currency="aed"
        current={false}
        purchasable
        onChoose={onChoose}
      />,
    );
    expect(screen.getByTestId('price-starter')).toHaveTextContent('AED 350');
    expect(screen.getByText('per month, AED 4,200 billed yearly')).toBeInTheDocument();
  });

  it('the current plan cannot be chosen again; enterprise offers contact instead of checkout', () => {
    renderApp(
      <>
        <PlanCard
          tariff={TARIFFS.business}
          period="monthly"
          currency="usd"
          current
          purchasable
          onChoose={() => {}}
        />
        <PlanCard
          tariff={TARIFFS.enterprise}
          period="monthly"
          currency="usd"
          current={false}
          purchasable={false}
          onChoose={() => {}}
        />
      </>,
    );
    const business = screen.getByRole('region', { name: /Business/ });
    expect(within(business).getByRole('button', { name: 'Current plan' })).toBeDisabled();
    const enterprise = screen.getByRole('region', { name: 'Enterprise' });
    expect(within(enterprise).getByText('On request')).toBeInTheDocument();
    expect(within(enterprise).getByRole('link', { name: 'Contact us' })).toHaveAttribute(
      'href',
      expect.stringMatching(/^mailto:/),
    );
  });
});
