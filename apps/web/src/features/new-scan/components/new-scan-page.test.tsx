import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { setUpPageTests } from '../../../test/page-setup.ts';
import {
  heading,
  ID1,
  ID2,
  pickVerified,
  posts,
  renderPage,
  stubApi,
  target,
} from '../testing/new-scan-fixtures.tsx';

// The new-scan stepper: the target step and its verification, and what the plan locks. Creating
// and starting: new-scan-create.test.tsx; the try_it card step: new-scan-one-time.test.tsx.
setUpPageTests();

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
});
