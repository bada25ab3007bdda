import type { ReactNode } from 'react';
import { I18nextProvider } from 'react-i18next';
import { Provider } from 'react-redux';
import { NotificationProvider } from '../components/feedback/snackbar.tsx';
import { PreferencesProvider } from '../contexts/preferences-context.tsx';
import { AuthProvider } from '../features/auth/auth-provider.tsx';
import { i18n } from '../lib/i18n.ts';
import type { TAppStore } from '../store/index.ts';
import { ThemeCustomization } from '../themes/index.tsx';

export function AppProviders({ store, children }: { store: TAppStore; children: ReactNode }) {
  return (
    <Provider store={store}>
      <I18nextProvider i18n={i18n}>
        <PreferencesProvider>
          <ThemeCustomization>
            <NotificationProvider>
              <AuthProvider>{children}</AuthProvider>
            </NotificationProvider>
          </ThemeCustomization>
        </PreferencesProvider>
      </I18nextProvider>
    </Provider>
  );
}
