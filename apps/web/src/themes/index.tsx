import type { EmotionCache } from '@emotion/cache';
import createCache from '@emotion/cache';
import { CacheProvider } from '@emotion/react';
import { CssBaseline } from '@mui/material';
import { createTheme, ThemeProvider } from '@mui/material/styles';
import { type ReactNode, useEffect, useMemo, useState } from 'react';
import { BREAKPOINTS, HEADER_HEIGHT } from '../config/layout.ts';
import type { TPreferences } from '../contexts/preferences.ts';
import { usePreferences } from '../contexts/preferences-context.tsx';
import { componentOverrides } from './overrides/index.ts';
import { buildPalette } from './palette.ts';
import { buildTypography } from './typography.ts';

const ltrCache = createCache({ key: 'mui' });
let rtlCache: EmotionCache | null = null;

/** The RTL stylis plugin (cssjanus) loads only when someone picks right-to-left. */
export async function loadRtlCache(): Promise<EmotionCache> {
  if (!rtlCache) {
    const { default: rtlPlugin } = await import('@mui/stylis-plugin-rtl');
    rtlCache = createCache({ key: 'muirtl', stylisPlugins: [rtlPlugin] });
  }
  return rtlCache;
}

export function buildTheme(
  prefs: Pick<TPreferences, 'mode' | 'presetColor' | 'fontFamily' | 'themeDirection'>,
) {
  return createTheme({
    breakpoints: { values: BREAKPOINTS },
    direction: prefs.themeDirection,
    palette: buildPalette(prefs.mode, prefs.presetColor),
    typography: buildTypography(prefs.fontFamily),
    shape: { borderRadius: 8 },
    // One header height on every breakpoint, so the drawer can sit right under it.
    mixins: { toolbar: { minHeight: HEADER_HEIGHT } },
    components: componentOverrides,
  });
}

/** Theme from the saved preferences; RTL really mirrors the layout (stylis RTL plugin + dir). */
export function ThemeCustomization({ children }: { children: ReactNode }) {
  const { mode, presetColor, fontFamily, themeDirection } = usePreferences();
  const theme = useMemo(
    () => buildTheme({ mode, presetColor, fontFamily, themeDirection }),
    [mode, presetColor, fontFamily, themeDirection],
  );

  const [cache, setCache] = useState<EmotionCache>(() => (themeDirection === 'rtl' && rtlCache) || ltrCache);

  useEffect(() => {
    let alive = true;
    if (themeDirection === 'rtl') {
      void loadRtlCache().then((c) => {
        if (!alive) return;
        document.documentElement.dir = 'rtl';
        setCache(c);
      });
    } else {
      document.documentElement.dir = 'ltr';
      setCache(ltrCache);
    }
    return () => {
      alive = false;
    };
  }, [themeDirection]);

  useEffect(() => {
    document.documentElement.style.colorScheme = mode;
  }, [mode]);

  return (
    <CacheProvider value={cache}>
      <ThemeProvider theme={theme}>
        <CssBaseline enableColorScheme />
        {children}
      </ThemeProvider>
    </CacheProvider>
  );
}
