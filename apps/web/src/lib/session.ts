import type { TTokenPair } from '@perimeter/contracts';
import { createAction } from '@reduxjs/toolkit';
import { STORAGE_KEYS } from '../config/layout.ts';

/** Tokens live in local storage and are read on every request (spec §6). */
export function getAccessToken(): string | null {
  return localStorage.getItem(STORAGE_KEYS.accessToken);
}

export function getRefreshToken(): string | null {
  return localStorage.getItem(STORAGE_KEYS.refreshToken);
}

export function storeTokens(tokens: TTokenPair): void {
  localStorage.setItem(STORAGE_KEYS.accessToken, tokens.access);
  localStorage.setItem(STORAGE_KEYS.refreshToken, tokens.refresh);
}

export function clearSession(): void {
  localStorage.removeItem(STORAGE_KEYS.accessToken);
  localStorage.removeItem(STORAGE_KEYS.refreshToken);
  localStorage.removeItem(STORAGE_KEYS.agreementAccepted);
}

/** Dispatched by the API client; the auth slice reacts to both. */
export const tokensRefreshed = createAction<TTokenPair>('session/tokensRefreshed');
export const sessionExpired = createAction('session/expired');
