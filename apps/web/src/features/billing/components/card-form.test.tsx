import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../../test/render.tsx';
import { CardForm, ZCardForm } from './card-form.tsx';

const valid = {
  card_number: '4242 4242 4242 4242',
  name_on_card: 'Ada',
  expiry: '12/39',
  cvc: '123',
  remember_card: false,
};

describe('card form validation (Luhn, expiry)', () => {
  it('the schema accepts a Luhn-valid number and a future expiry, refuses the rest', () => {
    expect(ZCardForm.safeParse(valid).success).toBe(true);
    const bad = (over: Partial<typeof valid>) =>
      ZCardForm.safeParse({ ...valid, ...over }).error?.issues[0]?.message;
    expect(bad({ card_number: '4242 4242 4242 4241' })).toBe('billing.card.numberInvalid');
    expect(bad({ card_number: '4242' })).toBe('billing.card.numberRequired');
    expect(bad({ expiry: '01/20' })).toBe('billing.card.expired');
    expect(bad({ expiry: '13/30' })).toBe('billing.card.expiryFormat');
    expect(bad({ cvc: '12' })).toBe('billing.card.cvcInvalid');
    expect(bad({ name_on_card: '  ' })).toBe('billing.card.nameRequired');
  }, 30_000);

  it('shows translated errors and submits only valid cards, formatting number and expiry as typed', async () => {
    const user = userEvent.setup();
    const onSubmit = vi.fn();
    renderApp(<CardForm submitLabel="Pay" onSubmit={onSubmit} />);
    await user.type(screen.getByLabelText('Card number'), '4242424242424241');
    expect(screen.getByLabelText('Card number')).toHaveValue('4242 4242 4242 4241');
    await user.type(screen.getByLabelText('Name on card'), 'Ada Lovelace');
    await user.type(screen.getByLabelText('Expiry date (MM/YY)'), '0120');
    expect(screen.getByLabelText('Expiry date (MM/YY)')).toHaveValue('01/20');
    await user.type(screen.getByLabelText('Last three digits'), '123');
    await user.click(screen.getByRole('button', { name: 'Pay' }));
    expect(await screen.findByText('This card number is not valid.')).toBeInTheDocument();
    expect(screen.getByText('This card has expired.')).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();

    await user.clear(screen.getByLabelText('Card number'));
    await user.type(screen.getByLabelText('Card number'), '4242424242424242');
    await user.clear(screen.getByLabelText('Expiry date (MM/YY)'));
    await user.type(screen.getByLabelText('Expiry date (MM/YY)'), '1239');
    await user.click(screen.getByLabelText('Remember this card'));
    await user.click(screen.getByRole('button', { name: 'Pay' }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit.mock.calls[0]?.[0]).toEqual({
      card_number: '4242 4242 4242 4242',
      name_on_card: 'Ada Lovelace',
      expiry: '12/39',
      cvc: '123',
      remember_card: true,
    });
  }, 30_000);
});
