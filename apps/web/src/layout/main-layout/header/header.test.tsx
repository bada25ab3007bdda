import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { changeLanguage, i18n } from '../../../lib/i18n.ts';
import { makeUser, renderApp, signedIn } from '../../../test/render.tsx';
import { LanguageSwitch } from './language-switch.tsx';
import { ThemeToggle } from './theme-toggle.tsx';

afterEach(async () => {
  vi.unstubAllGlobals();
  await changeLanguage('en');
});

describe('top bar controls', () => {
  it("switches light/dark with the tooltips 'Dark theme' / 'Light theme' and saves the choice", async () => {
    renderApp(<ThemeToggle />);
    await userEvent.click(screen.getByRole('button', { name: 'Dark theme' }));
    expect(screen.getByRole('button', { name: 'Light theme' })).toBeInTheDocument();
    expect(JSON.parse(localStorage.getItem('perimeter-ui-preferences') ?? '{}')).toMatchObject({
      mode: 'dark',
    });
  });

  it('switches the language, keeps it under `locale` and stores it on the signed-in user', async () => {
    const bodies: unknown[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (req: Request) => {
        bodies.push({
          method: req.method,
          path: new URL(req.url).pathname,
          body: JSON.parse(await req.text()),
        });
        return Response.json({ data: makeUser({ language: 'ru' }) });
      }),
    );
    const { store } = renderApp(<LanguageSwitch />, { auth: signedIn(makeUser()) });
    await userEvent.click(screen.getByRole('button', { name: 'Language' }));
    await userEvent.click(screen.getByRole('menuitem', { name: /Русский/ }));
    await waitFor(() => expect(i18n.language).toBe('ru'));
    expect(localStorage.getItem('locale')).toBe('ru');
    expect(document.documentElement.lang).toBe('ru');
    expect(screen.getByRole('button', { name: 'Язык' })).toBeInTheDocument();
    await waitFor(() => expect(store.getState().auth.user?.language).toBe('ru'));
    expect(bodies).toEqual([{ method: 'PUT', path: '/api/users/user/', body: { language: 'ru' } }]);
  });
});
