import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';
import { loadLanguage } from '../lib/i18n.ts';

// The app loads translations before its first render (main.tsx); tests do the same.
if (typeof document !== 'undefined') await loadLanguage('en');

afterEach(() => {
  if (typeof document === 'undefined') return; // node-environment tests (build scripts)
  cleanup();
  localStorage.clear();
  sessionStorage.clear();
});
