import type { TTargetEvent } from '@perimeter/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeUser, renderApp, signedIn } from '../../../test/render.tsx';
import { TargetDetailPage } from './target-detail-page.tsx';
import { extended, info, stubApi } from './targets-test-data.ts';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const ID = '44444444-4444-4444-8444-444444444444';
const checked: TTargetEvent = {
  kind: 'verified',
  detail: 'TXT record found.',
  created_at: '2026-11-02T10:00:00Z',
};
const unverified = extended(ID, 'acme.test', { verified: false, verified_at: null, status: 'unverified' });

function renderPage(route = `/targets/domain/${ID}`) {
  return renderApp(
    <Routes>
      <Route path="/targets/:targetType/:targetId" element={<TargetDetailPage />} />
    </Routes>,
    { auth: signedIn(makeUser({ tz: 'UTC' })), route },
  );
}

describe('target detail', () => {
  it('shows the verification state, what to publish and the history; re-verifying refreshes it', async () => {
    let verified = false;
    const calls = stubApi((url) => {
      if (url.pathname.endsWith('/get_info_by_id')) {
        const base = verified
          ? extended(ID, 'acme.test', { verified_at: '2026-11-02T10:00:00Z' })
          : unverified;
        return Response.json({
          data: info(base, {
            last_check_at: '2026-11-02T09:00:00Z',
            last_check_detail: verified ? 'TXT record found.' : 'No TXT record with the token was found.',
            history: [
              ...(verified ? [checked] : []),
              { kind: 'added', detail: 'acme.tset', created_at: '2026-11-01T09:00:00Z' },
            ],
          }),
        });
      }
      if (url.pathname.endsWith('/get_verification_txt'))
        return Response.json({
          data: {
            user_target_id: ID,
            target_type: 'domain',
            token: 'tok',
            value: 'perimeter-verification=tok',
            record_names: ['acme.test', '_perimeter.acme.test'],
            file_urls: [],
            instructions: '',
          },
        });
      if (url.pathname.endsWith('/check_verification')) {
        verified = true;
        return Response.json({
          data: {
            user_target_id: ID,
            verified: true,
            detail: 'TXT record found.',
            checked_at: '2026-11-02T10:00:00Z',
          },
        });
      }
      return undefined;
    });
    const user = userEvent.setup();
    renderPage();
    expect(await screen.findByRole('heading', { level: 1, name: 'acme.test' })).toBeInTheDocument();
    expect(calls[0]?.line).toBe(
      `GET /api/main/user_target/get_info_by_id?target_type=domain&user_target_id=${ID}`,
    );
    expect(screen.getByTestId('target-status-unverified')).toBeInTheDocument();
    expect(screen.getByTestId('target-last-check')).toHaveTextContent(
      'No TXT record with the token was found.',
    );
    const publish = await screen.findByTestId('target-publish');
    expect(within(publish).getByDisplayValue('perimeter-verification=tok')).toBeInTheDocument();
    expect(within(publish).getByDisplayValue('_perimeter.acme.test')).toBeInTheDocument();
    expect(
      within(screen.getByTestId('target-history')).getByText('Added in place of acme.tset'),
    ).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Scan now' })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Schedule scans' })).toHaveAttribute(
      'href',
      `/schedule-scan?target_type=domain&user_target_id=${ID}`,
    );

    await user.click(screen.getByRole('button', { name: 'Check verification' }));
    expect(await screen.findByText('acme.test is verified: it can be scanned.')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId('target-status-verified')).toBeInTheDocument());
    expect(screen.queryByTestId('target-publish')).not.toBeInTheDocument();
    const history = within(screen.getByTestId('target-history')).getAllByRole('listitem');
    expect(history.map((li) => li.textContent)).toEqual([
      expect.stringMatching(/^Verified11\/2\/26, 10:00 AM — TXT record found\.$/),
      expect.stringMatching(/^Added in place of acme\.tset/),
    ]);
    expect(screen.getByRole('button', { name: 'Scan now' })).toBeInTheDocument();
  }, 60_000);

  it('a disabled target offers to enable it again and no other change', async () => {
    stubApi((url) =>
      url.pathname.endsWith('/get_info_by_id')
        ? Response.json({ data: info(extended(ID, 'acme.test', { disabled: true, status: 'disabled' })) })
        : undefined,
    );
    renderPage();
    expect(await screen.findByRole('button', { name: 'Enable again' })).toBeInTheDocument();
    for (const name of ['Check verification', 'Scan now', 'Replace', 'Disable'])
      expect(screen.queryByRole('button', { name })).not.toBeInTheDocument();
  });

  it("another user's or a missing target reads as not found", async () => {
    stubApi(() => undefined);
    renderPage();
    expect(await screen.findByText('This target does not exist or is not yours.')).toBeInTheDocument();
  });
});
