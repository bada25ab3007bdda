import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes, useLocation } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeUser, renderApp, signedIn } from '../../../test/render.tsx';
import { TargetsPage } from './targets-page.tsx';
import { extended, stubApi } from './targets-test-data.ts';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

function Where() {
  const l = useLocation();
  return <output data-testid="where">{`${l.pathname}${l.search}`}</output>;
}

function renderPage(route = '/targets') {
  return renderApp(
    <>
      <Routes>
        <Route path="/targets" element={<TargetsPage />} />
        <Route path="*" element={null} />
      </Routes>
      <Where />
    </>,
    { auth: signedIn(makeUser({ tz: 'UTC' })), route },
  );
}

const acme = extended('11111111-1111-4111-8111-111111111111', 'acme.test', {
  last_scan: {
    id: 'scan-1',
    status: 'done',
    created_at: '2026-11-02T10:00:00Z',
    finished_at: '2026-11-02T10:02:00Z',
  },
  periodicity: 'Weekly: Sat 02:00 (UTC)',
  score: 41,
  counts: { critical: 1, high: 2, medium: 3, low: 2, informational: 4, unknown: 0 },
  assets: {
    scan_id: 'scan-1',
    hosts: 14,
    subdomains: 11,
    ip_addresses: 13,
    opened_ports: [21, 22, 25, 80, 443],
    technologies: ['Apache', 'jQuery', 'nginx'],
  },
});
const typo = extended('22222222-2222-4222-8222-222222222222', 'acme.tset', {
  verified: false,
  verified_at: null,
  status: 'unverified',
});
const net = extended('33333333-3333-4333-8333-333333333333', '127.0.93.0/28', {
  target_type: 'network',
  main_domain: null,
  ip_count: 16,
});

const listCalls = (calls: { line: string }[]) =>
  calls.filter((c) => c.line.includes('get_extend_targets_info')).map((c) => c.line);

describe('targets screen', () => {
  it("lists every target with the spec's columns from get_extend_targets_info", async () => {
    const calls = stubApi((url) =>
      url.pathname.endsWith('/get_extend_targets_info')
        ? Response.json({ data: { domain: [acme, typo], peer: [], network: [net] } })
        : undefined,
    );
    renderPage();
    const row = await screen.findByTestId(`target-${acme.user_target_id}`);
    expect(listCalls(calls)[0]).toBe(
      'GET /api/main/user_target/get_extend_targets_info?targets_type=domain&targets_type=peer&targets_type=network&disabled=false',
    );
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual([
      'Name',
      'Type',
      'Hosts',
      'Subdomains',
      'IP addresses',
      'Opened ports',
      'Technologies',
      'Last scan',
      'Periodicity',
      'Score',
      'Status',
      'Actions',
    ]);
    const cells = within(row)
      .getAllByRole('cell')
      .map((c) => c.textContent);
    expect(cells.slice(0, 7)).toEqual([
      'acme.test',
      'Domain',
      '14',
      '11',
      '13',
      // Shown shortened; the whole list is there for screen readers.
      '21, 22, 25 +2 more21, 22, 25, 80, 443',
      'Apache, jQuery +1 moreApache, jQuery, nginx',
    ]);
    expect(cells[8]).toBe('Weekly: Sat 02:00 (UTC)');
    expect(cells[9]).toBe('41');
    expect(within(row).getByTestId('target-status-verified')).toHaveTextContent('Verified');
    expect(within(row).getByRole('link', { name: 'acme.test' })).toHaveAttribute(
      'href',
      `/targets/domain/${acme.user_target_id}`,
    );
    expect(within(row).getByRole('link', { name: '11/2/26, 10:02 AM' })).toHaveAttribute(
      'href',
      '/scans/past-scans/scan-1',
    );
    const typoRow = screen.getByTestId(`target-${typo.user_target_id}`);
    expect(within(typoRow).getByText('not scanned yet')).toBeInTheDocument();
    expect(within(typoRow).getByRole('link', { name: 'no schedule' })).toHaveAttribute(
      'href',
      `/schedule-scan?target_type=domain&user_target_id=${typo.user_target_id}`,
    );
    expect(
      within(screen.getByTestId(`target-${net.user_target_id}`)).getByText('Network'),
    ).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Scheduled scans' })).toHaveAttribute('href', '/schedule-scan');
  }, 60_000);

  it('disables after confirming, then lists disabled targets and enables one again', async () => {
    let disabled = false;
    const calls = stubApi((url) => {
      if (url.pathname.endsWith('/get_extend_targets_info')) {
        const wantDisabled = url.searchParams.get('disabled') === 'true';
        const items =
          disabled === wantDisabled
            ? [{ ...typo, ...(disabled ? { status: 'disabled' as const } : {}) }]
            : [];
        return Response.json({ data: { domain: items, peer: [], network: [] } });
      }
      if (url.pathname.endsWith('/user_target/disable')) {
        disabled = true;
        return Response.json({ data: { ...typo, disabled: true } });
      }
      if (url.pathname.endsWith('/user_target/enable')) {
        disabled = false;
        return Response.json({ data: typo });
      }
      return undefined;
    });
    const user = userEvent.setup();
    renderPage();
    await user.click(await screen.findByRole('button', { name: 'Actions for acme.tset' }));
    await user.click(screen.getByRole('menuitem', { name: 'Disable' }));
    const dialog = screen.getByRole('dialog', { name: 'Disable acme.tset?' });
    await user.click(within(dialog).getByRole('button', { name: 'Disable' }));
    await waitFor(() =>
      expect(calls.some((c) => c.line === 'POST /api/main/user_target/disable')).toBe(true),
    );
    expect(calls.find((c) => c.line.endsWith('/disable'))?.body).toEqual({
      target_type: 'domain',
      user_target_id: typo.user_target_id,
    });
    expect(await screen.findByText(/acme\.tset is disabled/)).toBeInTheDocument();
    expect(await screen.findByTestId('targets-empty')).toBeInTheDocument();

    // The confirmation dialog fades out first (while it is there, the page is hidden from the accessibility tree).
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await user.click(screen.getByRole('button', { name: 'Disabled' }));
    await waitFor(() => expect(listCalls(calls).at(-1)).toContain('disabled=true'));
    expect(screen.getByTestId('where')).toHaveTextContent('/targets?view=disabled');
    await user.click(await screen.findByRole('button', { name: 'Actions for acme.tset' }));
    expect(screen.queryByRole('menuitem', { name: 'Check verification' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('menuitem', { name: 'Enable again' }));
    expect(await screen.findByText(/acme\.tset is enabled again/)).toBeInTheDocument();
    await waitFor(() =>
      expect(screen.getByTestId('targets-empty')).toHaveTextContent('No disabled targets.'),
    );
  }, 60_000);

  it('replaces a mistyped domain; a refusal shows the server detail in the dialog', async () => {
    let attempts = 0;
    const calls = stubApi((url) => {
      if (url.pathname.endsWith('/get_extend_targets_info'))
        return Response.json({ data: { domain: [typo], peer: [], network: [] } });
      if (url.pathname.endsWith('/user_target/replace')) {
        attempts += 1;
        if (attempts === 1)
          return Response.json(
            { detail: 'acme.test is already one of your targets.', code: 'conflict' },
            { status: 409 },
          );
        return Response.json({
          data: {
            replaced: { ...typo, disabled: true },
            added: { ...acme, user_target_id: 'new-id', verified: false },
          },
        });
      }
      return undefined;
    });
    const user = userEvent.setup();
    renderPage();
    await user.click(await screen.findByRole('button', { name: 'Actions for acme.tset' }));
    await user.click(screen.getByRole('menuitem', { name: 'Replace' }));
    const dialog = screen.getByRole('dialog', { name: 'Replace acme.tset' });
    await user.type(within(dialog).getByLabelText('New domain'), 'acme.test');
    await user.click(within(dialog).getByRole('button', { name: 'Replace' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'acme.test is already one of your targets.',
    );
    await user.click(within(dialog).getByRole('button', { name: 'Replace' }));
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent('/targets/domain/new-id'));
    expect(calls.filter((c) => c.line.endsWith('/replace')).at(-1)?.body).toEqual({
      target_type: 'domain',
      user_target_id: typo.user_target_id,
      target: 'acme.test',
    });
  }, 60_000);

  it('re-verifies from the row: a failed check tells why', async () => {
    stubApi((url) => {
      if (url.pathname.endsWith('/get_extend_targets_info'))
        return Response.json({ data: { domain: [typo], peer: [], network: [] } });
      if (url.pathname.endsWith('/check_verification'))
        return Response.json({
          data: {
            user_target_id: typo.user_target_id,
            verified: false,
            detail: 'No TXT record with the token was found.',
            checked_at: '2026-11-02T10:00:00Z',
          },
        });
      return undefined;
    });
    const user = userEvent.setup();
    renderPage();
    await user.click(await screen.findByRole('button', { name: 'Actions for acme.tset' }));
    await user.click(screen.getByRole('menuitem', { name: 'Check verification' }));
    expect(
      await screen.findByText('acme.tset is not verified yet: No TXT record with the token was found.'),
    ).toBeInTheDocument();
  });
});
