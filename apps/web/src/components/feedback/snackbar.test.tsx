import { Button } from '@mui/material';
import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../test/render.tsx';
import { NotificationProvider, notify } from './snackbar.tsx';

function renderProvider() {
  return renderApp(
    <NotificationProvider>
      <span />
    </NotificationProvider>,
  );
}

describe('snackbar', () => {
  it('shows an alert notification with a close control that closes it', async () => {
    renderProvider();
    act(() => {
      notify({ message: 'Changes saved', alert: { color: 'success', variant: 'filled' } });
    });
    const alert = await screen.findByText('Changes saved');
    expect(alert.closest('[role="alert"]')).not.toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByText('Changes saved')).not.toBeInTheDocument());
  });

  it('shows the plain variant with the given action before the close control', async () => {
    renderProvider();
    act(() => {
      notify({ message: 'Note archived', variant: 'default', action: <Button>Undo</Button> });
    });
    expect(await screen.findByText('Note archived')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Undo' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Close' })).toBeInTheDocument();
  });

  it('stacks at most 10 notifications (spec §9)', async () => {
    renderProvider();
    act(() => {
      for (let i = 1; i <= 12; i++) notify({ message: `Message ${i}`, close: false });
    });
    await screen.findByText('Message 10');
    expect(screen.getAllByText(/^Message \d+$/)).toHaveLength(10);
    expect(screen.queryByText('Message 11')).not.toBeInTheDocument();
  });
});
