import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { makeUser, renderApp, signedIn } from '../../../test/render.tsx';
import { congratulationsPlan, readTariffMarker, TARIFF_MARKER_KEY } from '../hooks/tariff-marker.ts';
import { useCongratulations } from '../hooks/use-congratulations.ts';
import { CongratulationsModal } from './congratulations-modal.tsx';

const withPlan = (key: string, name = key) => makeUser({ tariffs: [{ key, name }] });

describe('congratulations modal', () => {
  it('opens only when the marker is a valid plan key and equals the first tariff', () => {
    expect(congratulationsPlan('starter', withPlan('starter', 'Starter'))).toBe('starter');
    expect(congratulationsPlan('starter', withPlan('starter'))).toBe('starter');
    expect(congratulationsPlan('gold', withPlan('gold'))).toBeNull();
    expect(congratulationsPlan('business', withPlan('starter', 'Starter'))).toBeNull();
    expect(congratulationsPlan(null, withPlan('starter'))).toBeNull();
    expect(congratulationsPlan('starter', makeUser({ tariffs: [] }))).toBeNull();
    expect(congratulationsPlan('starter', null)).toBeNull();
  });

  function Harness() {
    const c = useCongratulations();
    return <CongratulationsModal plan={c.plan} onClose={c.dismiss} />;
  }

  it('shows the plan name, features, limits and a recommendation; "Got it" closes it and clears the marker', async () => {
    localStorage.setItem(TARIFF_MARKER_KEY, 'starter');
    renderApp(<Harness />, { auth: signedIn(withPlan('starter', 'Starter')) });
    const dialog = await screen.findByRole('dialog', { name: 'Congratulations' });
    expect(dialog).toHaveTextContent('Your plan is now Starter.');
    expect(dialog).toHaveTextContent('4 scans per month (weekly)');
    expect(dialog).toHaveTextContent('Host and Subdomain Limitations:');
    expect(dialog).toHaveTextContent('100 external IPs');
    expect(dialog).toHaveTextContent(/We recommend/);
    await userEvent.click(screen.getByRole('button', { name: 'Got it' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(readTariffMarker()).toBeNull();
  });

  it('stays closed when the marker names another plan than the user has', () => {
    localStorage.setItem(TARIFF_MARKER_KEY, 'business');
    renderApp(<Harness />, { auth: signedIn(withPlan('starter', 'Starter')) });
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(readTariffMarker()).toBe('business');
  });

  it('the recommendation after a purchase links to the targets and the schedules', () => {
    renderApp(<CongratulationsModal plan="business" onClose={() => {}} />, { auth: signedIn(makeUser()) });
    const dialog = screen.getByRole('dialog');
    expect(within(dialog).getByRole('link', { name: 'Schedule a weekly scan' })).toHaveAttribute(
      'href',
      '/schedule-scan',
    );
    expect(within(dialog).getByRole('link', { name: 'Add and verify targets' })).toHaveAttribute(
      'href',
      '/targets',
    );
  });
});
