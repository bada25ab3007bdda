import { screen, within } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeUser, renderApp, signedIn } from '../../../test/render.tsx';
import { CongratulationsModal } from '../../billing/components/congratulations-modal.tsx';
import { SchedulesPage } from '../../schedules/components/schedules-page.tsx';
import { extended, stubApi } from './targets-test-data.ts';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('scheduled scans in reach', () => {
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

  it('the schedule form opens with the target of the link chosen', async () => {
    const acme = extended('55555555-5555-4555-8555-555555555555', 'acme.test');
    const beta = extended('66666666-6666-4666-8666-666666666666', 'beta.test');
    stubApi((url) => {
      if (url.pathname.endsWith('/get_targets'))
        return Response.json({ data: { domain: [acme, beta], peer: [], network: [] } });
      if (url.pathname.endsWith('/get_user_scan_schedules')) return Response.json({ data: [] });
      if (url.pathname.endsWith('/get_schedule_overview'))
        return Response.json({ data: { tz: 'UTC', from: '2026-11-22', to: '2026-12-22', days: [] } });
      return undefined;
    });
    renderApp(
      <Routes>
        <Route path="/schedule-scan" element={<SchedulesPage />} />
      </Routes>,
      {
        auth: signedIn(makeUser({ tz: 'UTC' })),
        route: `/schedule-scan?target_type=domain&user_target_id=${beta.user_target_id}`,
      },
    );
    const form = await screen.findByRole('form', { name: 'Add a schedule' });
    expect(within(form).getByText('beta.test')).toBeInTheDocument();
    expect(within(form).queryByText('acme.test')).not.toBeInTheDocument();
  }, 60_000);
});
