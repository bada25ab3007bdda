import type { TUser } from '@perimeter/contracts';
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { I18nextProvider } from 'react-i18next';
import { Provider } from 'react-redux';
import { MemoryRouter } from 'react-router';
import { NotificationProvider } from '../components/feedback/snackbar.tsx';
import { PreferencesProvider } from '../contexts/preferences-context.tsx';
import { AuthProvider } from '../features/auth/auth-provider.tsx';
import { initialAuthState, type TAuthState } from '../features/auth/auth-slice.ts';
import { i18n } from '../lib/i18n.ts';
import { createStore } from '../store/index.ts';
import { ThemeCustomization } from '../themes/index.tsx';

export function makeUser(overrides: Partial<TUser> = {}, metadata: Partial<TUser['metadata']> = {}): TUser {
  return {
    id: 'u1',
    email: 'ada@example.com',
    first_name: 'Ada',
    last_name: 'Lovelace',
    company: 'Analytical Engines',
    tz: 'Europe/London',
    language: 'en',
    metadata: { email_verified: true, agreement_status: true, '2fa_enable': true, ...metadata },
    notifications: { scan_finished: true, new_critical_high: true },
    tariffs: [],
    date_joined: '2026-01-01T00:00:00Z',
    ...overrides,
  };
}

export function signedIn(user: TUser): TAuthState {
  return {
    ...initialAuthState,
    user,
    isAuthenticated: true,
    loading: false,
    accessToken: 'a',
    refreshToken: 'r',
  };
}

export const signedOut: TAuthState = { ...initialAuthState, loading: false };

export function renderApp(
  ui: ReactElement,
  {
    route = '/',
    auth = signedOut,
    withRouter = true,
  }: { route?: string | { pathname: string; state?: unknown }; auth?: TAuthState; withRouter?: boolean } = {},
) {
  const store = createStore({ auth });
  const result = render(
    <Provider store={store}>
      <I18nextProvider i18n={i18n}>
        <PreferencesProvider>
          <ThemeCustomization>
            <NotificationProvider>
              <AuthProvider skipInit>
                {withRouter ? <MemoryRouter initialEntries={[route]}>{ui}</MemoryRouter> : ui}
              </AuthProvider>
            </NotificationProvider>
          </ThemeCustomization>
        </PreferencesProvider>
      </I18nextProvider>
    </Provider>,
  );
  return { store, ...result };
}
