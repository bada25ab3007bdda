import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app.tsx';
import { loadPreferences } from './contexts/preferences.ts';
import { initLanguage } from './lib/i18n.ts';
import { loadRtlCache } from './themes/index.tsx';

const root = document.getElementById('root');
if (!root) throw new Error('#root is missing from index.html');

// Load the stored language and, for RTL, the mirroring plugin before the first paint.
await Promise.all([initLanguage(), loadPreferences().themeDirection === 'rtl' ? loadRtlCache() : null]);

createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
