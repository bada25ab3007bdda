import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { setUpPageTests } from '../../../test/page-setup.ts';
import {
  heading,
  ID1,
  pickVerified,
  posts,
  renderPage,
  SCAN_ID,
  stubApi,
  target,
} from '../testing/new-scan-fixtures.tsx';

// The new-scan stepper's last step: create only, or create and start, and the server's refusals.
setUpPageTests();

// Typing-heavy flows: jsdom and user-event are slow on a shared machine.
describe('new scan stepper: create and start', { timeout: 30_000 }, () => {
  it('create only: the custom scan body, no start, then the scan page', async () => {
    const calls = stubApi({ targets: [target(ID1, 'lab.example.com', { verified: true })] });
    const user = userEvent.setup();
    renderPage('business');
    await pickVerified(user);
    await user.click(screen.getByRole('radio', { name: 'Custom scan' }));
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('Choose at least one class or subclass.')).toBeInTheDocument();
    expect(heading()).toHaveTextContent('Step 3 of 4');
    await user.click(screen.getByRole('checkbox', { name: 'Information gathering' }));
    expect(screen.getByRole('checkbox', { name: 'Leaked credentials' })).toBeChecked();
    await user.click(screen.getByRole('checkbox', { name: 'Vulnerability scanner' }));
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(heading()).toHaveTextContent('Step 4 of 4: Review'));
    expect(screen.getByText('Custom scan: Vulnerability scanner, Leaked credentials')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Create only' }));
    expect(await screen.findByText(`scan detail ${SCAN_ID}`)).toBeInTheDocument();
    expect(posts(calls, '/main/create_abstract_scan').map((c) => c.body)).toEqual([
      {
        targets: [{ target_type: 'domain', user_target_id: ID1 }],
        scan_type: 'custom',
        custom_scan_config: {
          classes: ['class_information_gathering'],
          subclasses: ['exploit_scanner', 'leakcheck'],
        },
      },
    ]);
    expect(posts(calls, '/main/start_created_abstract_scan')).toHaveLength(0);
  });

  it('a custom scan with the vulnerability scanner can narrow severities and bring back default-excluded tags', async () => {
    const calls = stubApi({ targets: [target(ID1, 'lab.example.com', { verified: true })] });
    const user = userEvent.setup();
    renderPage('business');
    await pickVerified(user);
    await user.click(screen.getByRole('radio', { name: 'Custom scan' }));
    expect(screen.queryByTestId('template-choice')).toBeNull();
    await user.click(screen.getByRole('checkbox', { name: 'Vulnerability scanner' }));
    const choice = screen.getByTestId('template-choice');
    for (const s of ['Info', 'Unknown', 'Low'])
      await user.click(within(choice).getByRole('checkbox', { name: s }));
    await user.type(
      within(choice).getByRole('textbox', { name: 'Also run tags left out by default' }),
      'Fuzz, dos',
    );
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(heading()).toHaveTextContent('Step 4 of 4: Review'));
    await user.click(screen.getByRole('button', { name: 'Create only' }));
    expect(await screen.findByText(`scan detail ${SCAN_ID}`)).toBeInTheDocument();
    expect(posts(calls, '/main/create_abstract_scan').map((c) => c.body)).toEqual([
      {
        targets: [{ target_type: 'domain', user_target_id: ID1 }],
        scan_type: 'custom',
        custom_scan_config: {
          classes: [],
          subclasses: ['exploit_scanner'],
          templates: { severities: ['critical', 'high', 'medium'], include_tags: ['fuzz', 'dos'] },
        },
      },
    ]);
  });

  it('create and start: a full scan is created, then started by id, then the scan page', async () => {
    const calls = stubApi({ targets: [target(ID1, 'lab.example.com', { verified: true })] });
    const user = userEvent.setup();
    renderPage('starter');
    await pickVerified(user);
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await user.click(await screen.findByRole('button', { name: 'Create and start' }));
    expect(await screen.findByText(`scan detail ${SCAN_ID}`)).toBeInTheDocument();
    const order = calls.filter((c) => c.method === 'POST').map((c) => c.path);
    expect(order).toEqual(['/main/create_abstract_scan', '/main/start_created_abstract_scan']);
    expect(posts(calls, '/main/create_abstract_scan')[0]?.body).toEqual({
      targets: [{ target_type: 'domain', user_target_id: ID1 }],
      scan_type: 'full',
    });
    expect(posts(calls, '/main/start_created_abstract_scan')[0]?.body).toEqual({ id: SCAN_ID });
    // Not a try_it plan: no payment lookups at all.
    expect(calls.some((c) => c.path.startsWith('/users/billing/state'))).toBe(false);
  });

  it('shows the detail of a refused start and keeps the created scan reachable', async () => {
    stubApi({
      targets: [target(ID1, 'lab.example.com', { verified: true })],
      overrides: {
        '/main/start_created_abstract_scan': () =>
          Response.json(
            {
              code: 'forbidden',
              detail: 'Plan limit reached: the Starter plan allows 4 scans per month (4 started this month).',
            },
            { status: 403 },
          ),
      },
    });
    const user = userEvent.setup();
    renderPage('starter');
    await pickVerified(user);
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await user.click(await screen.findByRole('button', { name: 'Create and start' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('the Starter plan allows 4 scans per month (4 started this month)');
    expect(within(alert).getByRole('link', { name: 'Open the scan' })).toHaveAttribute(
      'href',
      `/scans/past-scans/${SCAN_ID}`,
    );
    expect(screen.queryByText(/scan detail/)).not.toBeInTheDocument();
  });

  it('shows a 400 validation detail from create', async () => {
    stubApi({
      targets: [target(ID1, 'lab.example.com', { verified: true })],
      overrides: {
        '/main/create_abstract_scan': () =>
          Response.json(
            {
              code: 'validation_error',
              detail: 'A scan covers targets of one type; create one scan per type.',
            },
            { status: 400 },
          ),
      },
    });
    const user = userEvent.setup();
    renderPage('business');
    await pickVerified(user);
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await user.click(await screen.findByRole('button', { name: 'Create only' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'A scan covers targets of one type; create one scan per type.',
    );
  });
});
