import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from 'react';
import { DEFAULT_PREFERENCES, loadPreferences, savePreferences, type TPreferences } from './preferences.ts';

type TPreferencesContext = TPreferences & {
  update: (patch: Partial<TPreferences>) => void;
  reset: () => void;
};

const PreferencesContext = createContext<TPreferencesContext | null>(null);

export function PreferencesProvider({ children }: { children: ReactNode }) {
  const [prefs, setPrefs] = useState<TPreferences>(() => loadPreferences());

  const update = useCallback((patch: Partial<TPreferences>) => {
    setPrefs((prev) => {
      const next = { ...prev, ...patch };
      savePreferences(next);
      return next;
    });
  }, []);

  const reset = useCallback(() => {
    savePreferences(DEFAULT_PREFERENCES);
    setPrefs(DEFAULT_PREFERENCES);
  }, []);

  const value = useMemo(() => ({ ...prefs, update, reset }), [prefs, update, reset]);
  return <PreferencesContext.Provider value={value}>{children}</PreferencesContext.Provider>;
}

export function usePreferences(): TPreferencesContext {
  const context = useContext(PreferencesContext);
  if (!context) throw new Error('context must be use inside provider');
  return context;
}
