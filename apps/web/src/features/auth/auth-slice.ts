import type { TSessionResponse, TUser } from '@perimeter/contracts';
import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { sessionExpired, tokensRefreshed } from '../../lib/session.ts';

/** Auth state of spec §3. */
export type TAuthState = {
  user: TUser | null;
  accessToken: string | null;
  refreshToken: string | null;
  ephemeral_token: string | null;
  isAuthenticated: boolean;
  loading: boolean;
  error: string | null;
};

export const initialAuthState: TAuthState = {
  user: null,
  accessToken: null,
  refreshToken: null,
  ephemeral_token: null,
  isAuthenticated: false,
  loading: true,
  error: null,
};

const signedOut = (error: string | null = null): TAuthState => ({
  ...initialAuthState,
  loading: false,
  error,
});

export const authSlice = createSlice({
  name: 'auth',
  initialState: initialAuthState,
  reducers: {
    loginInit: (state) => {
      state.loading = true;
    },
    ephemeralTokenReceived: (state, action: PayloadAction<string>) => {
      state.ephemeral_token = action.payload;
      state.loading = false;
    },
    loggedIn: (_state, action: PayloadAction<TSessionResponse>) => ({
      user: action.payload.user,
      accessToken: action.payload.access,
      refreshToken: action.payload.refresh,
      ephemeral_token: null,
      isAuthenticated: true,
      loading: false,
      error: null,
    }),
    userLoaded: (
      state,
      action: PayloadAction<{ user: TUser; access: string | null; refresh: string | null }>,
    ) => {
      state.user = action.payload.user;
      state.accessToken = action.payload.access;
      state.refreshToken = action.payload.refresh;
      state.isAuthenticated = true;
      state.loading = false;
      state.error = null;
    },
    userUpdated: (state, action: PayloadAction<TUser>) => {
      state.user = action.payload;
    },
    userFailed: (_state, action: PayloadAction<string | null>) => signedOut(action.payload),
    loggedOut: () => signedOut(),
    verifiedSet: (state, action: PayloadAction<boolean>) => {
      if (state.user) state.user.metadata.email_verified = action.payload;
    },
  },
  extraReducers: (builder) => {
    builder
      .addCase(tokensRefreshed, (state, action) => {
        state.accessToken = action.payload.access;
        state.refreshToken = action.payload.refresh;
      })
      .addCase(sessionExpired, () => signedOut());
  },
});

export const authActions = authSlice.actions;
