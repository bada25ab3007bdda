/** Shell constants of spec §9. */
export const DRAWER_WIDTH = 260;
export const MINI_DRAWER_WIDTH = 60;
export const HEADER_HEIGHT = 72;
/** Horizontal menu: items past this count fold into "More items". */
export const HORIZONTAL_MAX_ITEMS = 4;

export const BREAKPOINTS = { xs: 0, sm: 768, md: 1024, lg: 1266, xl: 1440 } as const;

export const SNACKBAR_AUTO_HIDE_MS = 6000;
export const SNACKBAR_MAX_STACK = 10;

export const COOKIE_CONSENT_NAME = 'cookieConsent';
export const COOKIE_CONSENT_DAYS = 150;

/** Local-storage keys of spec §9 plus our UI preferences. */
export const STORAGE_KEYS = {
  accessToken: 'accessToken',
  refreshToken: 'refreshToken',
  agreementAccepted: 'agreementAccepted',
  locale: 'locale',
  preferences: 'perimeter-ui-preferences',
} as const;
