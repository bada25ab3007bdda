import { act, render, renderHook } from '@testing-library/react';
import type { ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import { buildTheme } from '../themes/index.tsx';
import { DEFAULT_PREFERENCES, loadPreferences, parsePreferences } from './preferences.ts';
import { PreferencesProvider, usePreferences } from './preferences-context.tsx';

const KEY = 'perimeter-ui-preferences';
const wrapper = ({ children }: { children: ReactNode }) => (
  <PreferencesProvider>{children}</PreferencesProvider>
);

function Probe() {
  usePreferences();
  return null;
}

describe('UI preferences', () => {
  it('defaults to light mode and a vertical menu', () => {
    expect(loadPreferences()).toEqual(DEFAULT_PREFERENCES);
    expect(DEFAULT_PREFERENCES).toMatchObject({
      mode: 'light',
      menuOrientation: 'vertical',
      themeDirection: 'ltr',
    });
  });

  it('persists every change in local storage and reads it back on the next start', () => {
    const { result, unmount } = renderHook(() => usePreferences(), { wrapper });
    act(() => result.current.update({ mode: 'dark', themeDirection: 'rtl', menuOrientation: 'horizontal' }));
    act(() =>
      result.current.update({ miniDrawer: true, container: true, presetColor: 'teal', fontFamily: 'serif' }),
    );
    expect(JSON.parse(localStorage.getItem(KEY) ?? '{}')).toEqual({
      fontFamily: 'serif',
      menuOrientation: 'horizontal',
      miniDrawer: true,
      container: true,
      mode: 'dark',
      presetColor: 'teal',
      themeDirection: 'rtl',
    });
    unmount();
    const again = renderHook(() => usePreferences(), { wrapper });
    expect(again.result.current).toMatchObject({ mode: 'dark', themeDirection: 'rtl', presetColor: 'teal' });
    act(() => again.result.current.reset());
    expect(JSON.parse(localStorage.getItem(KEY) ?? '{}')).toEqual(DEFAULT_PREFERENCES);
  });

  it('keeps valid fields and drops invalid ones one by one', () => {
    expect(parsePreferences({ mode: 'dark', themeDirection: 'sideways', miniDrawer: 'yes' })).toEqual({
      ...DEFAULT_PREFERENCES,
      mode: 'dark',
    });
    localStorage.setItem(KEY, '{not json');
    expect(loadPreferences()).toEqual(DEFAULT_PREFERENCES);
  });

  it('builds an RTL theme with the spec breakpoints', () => {
    const theme = buildTheme({
      mode: 'dark',
      presetColor: 'default',
      fontFamily: 'system',
      themeDirection: 'rtl',
    });
    expect(theme.direction).toBe('rtl');
    expect(theme.palette.mode).toBe('dark');
    expect(theme.breakpoints.values).toEqual({ xs: 0, sm: 768, md: 1024, lg: 1266, xl: 1440 });
  });

  it("throws 'context must be use inside provider' outside its provider", () => {
    const original = console.error;
    console.error = () => {};
    try {
      expect(() => render(<Probe />)).toThrow('context must be use inside provider');
    } finally {
      console.error = original;
    }
  });
});
