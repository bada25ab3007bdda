import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../test/render.tsx';
import { NotificationProvider } from './snackbar.tsx';
import { openSnackbar } from './snackbar-slice.ts';

describe('snackbar', () => {
  it('shows an alert snackbar from the notification state with a close control', async () => {
    const { store } = renderApp(
      <NotificationProvider>
        <span />
      </NotificationProvider>,
    );
    act(() => {
      store.dispatch(
        openSnackbar({ message: 'Changes saved', alert: { color: 'success', variant: 'filled' } }),
      );
    });
    const alert = await screen.findByText('Changes saved');
    expect(alert.closest('[role="alert"]')).not.toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Close' }));
    await vi.waitFor(() => expect(store.getState().snackbar.open).toBe(false));
  });

  it('shows the plain variant with an undo button when asked', async () => {
    const { store } = renderApp(
      <NotificationProvider>
        <span />
      </NotificationProvider>,
    );
    act(() => {
      store.dispatch(openSnackbar({ message: 'Note archived', variant: 'default', actionButton: true }));
    });
    expect(await screen.findByText('Note archived')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Undo' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Close' })).toBeInTheDocument();
  });
});
