import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { setUpPageTests } from '../../../test/page-setup.ts';
import { listCalls, page, renderPage, stubApi, uuid, vuln } from '../testing/events-fixtures.tsx';

// Resolving a finding from its details, with a reason, and Undo (through the events page).
setUpPageTests();

describe('resolving a finding', () => {
  it('marks a finding resolved with a reason; Undo in the snackbar reopens it', async () => {
    let resolved = false;
    const calls = stubApi((path, body) => {
      if (path.endsWith('/main/resolve_abstract_scan_event')) {
        resolved = true;
        return Response.json({
          data: vuln(1, { resolved: true, resolved_reason: body?.reason as 'accepted_risk' }),
        });
      }
      if (path.endsWith('/main/unresolve_abstract_scan_event')) {
        resolved = false;
        return Response.json({ data: vuln(1) });
      }
      return page([vuln(1, resolved ? { resolved: true, resolved_reason: 'accepted_risk' } : {})]);
    });
    const user = userEvent.setup();
    renderPage('/events/vulnerabilities');
    await user.click(await screen.findByTestId(`event-${uuid(1)}`));
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('combobox', { name: /^Reason/ }));
    await user.click(await screen.findByRole('option', { name: 'Accepted risk' }));
    const listsBefore = listCalls(calls).length;
    await user.click(within(dialog).getByRole('button', { name: 'Mark as resolved' }));

    const resolve = await waitFor(() => {
      const call = calls.find((c) => c.path.endsWith('/resolve_abstract_scan_event'));
      expect(call).toBeDefined();
      return call;
    });
    expect(resolve?.body).toEqual({
      scan_subclass: 'exploit_scanner',
      event_id: uuid(1),
      reason: 'accepted_risk',
    });
    // The dialog closes (so the snackbar is reachable), the list is asked again and shows the new state.
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await waitFor(() => expect(listCalls(calls).length).toBeGreaterThan(listsBefore));
    await waitFor(() =>
      expect(within(screen.getByTestId(`event-${uuid(1)}`)).getByText('Resolved')).toBeInTheDocument(),
    );

    const snackbar = (await screen.findByText('Marked as resolved.')).closest(
      '[role="alert"]',
    ) as HTMLElement;
    await user.click(within(snackbar).getByRole('button', { name: 'Undo' }));
    await waitFor(() =>
      expect(calls.find((c) => c.path.endsWith('/unresolve_abstract_scan_event'))?.body).toEqual({
        scan_subclass: 'exploit_scanner',
        event_id: uuid(1),
      }),
    );
    expect(await screen.findByText('Change undone.')).toBeInTheDocument();
    await waitFor(() =>
      expect(within(screen.getByTestId(`event-${uuid(1)}`)).getByText('Open')).toBeInTheDocument(),
    );
    await user.click(screen.getByTestId(`event-${uuid(1)}`));
    expect(
      within(await screen.findByRole('dialog')).getByRole('button', { name: 'Mark as resolved' }),
    ).toBeInTheDocument();
  });

  it('reopening offers Undo, which resolves again with the former reason', async () => {
    const calls = stubApi((path, body) => {
      if (path.endsWith('/main/unresolve_abstract_scan_event')) return Response.json({ data: vuln(1) });
      if (path.endsWith('/main/resolve_abstract_scan_event'))
        return Response.json({
          data: vuln(1, { resolved: true, resolved_reason: body?.reason as 'false_positive' }),
        });
      return page([vuln(1, { resolved: true, resolved_reason: 'false_positive' })]);
    });
    const user = userEvent.setup();
    renderPage('/events/vulnerabilities');
    await user.click(await screen.findByTestId(`event-${uuid(1)}`));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByTestId('resolved-reason')).toHaveTextContent('Resolved: False positive');
    await user.click(within(dialog).getByRole('button', { name: 'Reopen' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls.find((c) => c.path.endsWith('/unresolve_abstract_scan_event'))?.body).toEqual({
      scan_subclass: 'exploit_scanner',
      event_id: uuid(1),
    });
    const snackbar = (await screen.findByText('Reopened.')).closest('[role="alert"]') as HTMLElement;
    await user.click(within(snackbar).getByRole('button', { name: 'Undo' }));
    await waitFor(() =>
      expect(calls.filter((c) => c.path.endsWith('/resolve_abstract_scan_event')).map((c) => c.body)).toEqual(
        [{ scan_subclass: 'exploit_scanner', event_id: uuid(1), reason: 'false_positive' }],
      ),
    );
  });

  it('tells why a resolve was refused and keeps the dialog open', async () => {
    stubApi((path) =>
      path.endsWith('/main/resolve_abstract_scan_event')
        ? Response.json({ detail: 'Event not found.', code: 'not_found' }, { status: 404 })
        : page([vuln(1)]),
    );
    const user = userEvent.setup();
    renderPage('/events/vulnerabilities');
    await user.click(await screen.findByTestId(`event-${uuid(1)}`));
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('button', { name: 'Mark as resolved' }));
    const alert = (await screen.findByText('Not found.')).closest('.MuiAlert-root');
    expect(alert).toHaveClass('MuiAlert-colorError');
    expect(screen.queryByText('Marked as resolved.')).toBeNull();
    expect(within(dialog).getByRole('button', { name: 'Mark as resolved' })).toBeEnabled();
  });
});
