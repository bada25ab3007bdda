import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../test/render.tsx';
import { acceptCookies, CookieBanner, hasCookieConsent } from './cookie-banner.tsx';
import { MaintenanceBanner } from './maintenance-banner.tsx';
import { sanitizeMessage } from './server-html.tsx';

function clearCookies() {
  for (const c of document.cookie.split(';')) {
    const name = c.split('=')[0]?.trim();
    // biome-ignore lint/suspicious/noDocumentCookie: jsdom has no Cookie Store API
    if (name) document.cookie = `${name}=; Max-Age=0; Path=/`;
  }
}

describe('cookie banner', () => {
  afterEach(clearCookies);

  it('shows without the cookieConsent cookie and hides after "Accept All Cookies"', async () => {
    renderApp(<CookieBanner />);
    const link = screen.getByRole('link', { name: 'Privacy policy' });
    expect(link).toHaveAttribute('href', '/pdf/privacy-policy.pdf');
    await userEvent.click(screen.getByRole('button', { name: 'Accept All Cookies' }));
    expect(screen.queryByRole('button', { name: 'Accept All Cookies' })).not.toBeInTheDocument();
    expect(hasCookieConsent()).toBe(true);
  });

  it('stays hidden when consent exists, and the cookie lives 150 days', () => {
    const spy = vi.spyOn(document, 'cookie', 'set');
    acceptCookies();
    expect(spy).toHaveBeenCalledWith(expect.stringMatching(/^cookieConsent=true; Max-Age=12960000; Path=\//));
    spy.mockRestore();
    renderApp(<CookieBanner />);
    expect(screen.queryByRole('button', { name: 'Accept All Cookies' })).not.toBeInTheDocument();
  });
});

describe('maintenance banner', () => {
  afterEach(() => vi.unstubAllGlobals());

  function stubMaintenance(body: unknown) {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Response.json({ data: body })),
    );
  }

  it('sanitizes the operator HTML', async () => {
    const clean = await sanitizeMessage(
      '<b>Back soon</b><img src=x onerror="alert(1)"><script>alert(2)</script>',
    );
    expect(clean).toBe('<b>Back soon</b>');
  });

  it('shows the sanitized message when maintenance mode is on', async () => {
    stubMaintenance({
      maintenance_mode: true,
      message: 'Upgrade until <b>14:00</b><script>alert(1)</script>',
    });
    renderApp(<MaintenanceBanner />);
    const message = await screen.findByTestId('maintenance-message');
    expect(message.innerHTML).toBe('Upgrade until <b>14:00</b>');
  });

  it('renders nothing when maintenance mode is off', async () => {
    stubMaintenance({ maintenance_mode: false, message: '<b>hidden</b>' });
    const { store } = renderApp(<MaintenanceBanner />);
    await waitFor(() =>
      expect(store.getState().api.queries['getMaintenance(undefined)']?.status).toBe('fulfilled'),
    );
    expect(screen.queryByText('hidden')).not.toBeInTheDocument();
  });
});
