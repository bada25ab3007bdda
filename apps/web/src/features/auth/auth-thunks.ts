import type { TLoginBody, TSessionResponse, TUser } from '@perimeter/contracts';
import { api } from '../../lib/api-client.ts';
import { clearSession, getAccessToken, getRefreshToken, storeTokens } from '../../lib/session.ts';
import type { TAppDispatch, TRootState } from '../../store/index.ts';
import { getUserApi } from './api/get-user.ts';
import { loginApi } from './api/login.ts';
import { loginCodeApi } from './api/login-code.ts';
import { logoutApi } from './api/logout.ts';
import { authActions } from './auth-slice.ts';

const EPHEMERAL_KEY = 'perimeter-ephemeral-token';
type TThunk<R> = (dispatch: TAppDispatch, getState: () => TRootState) => R;

/** App start (spec §4): login-init when an access token exists, else logout. */
export const initAuth = (): TThunk<Promise<void>> => async (dispatch) => {
  const ephemeral = sessionStorage.getItem(EPHEMERAL_KEY);
  if (!getAccessToken()) {
    dispatch(logout());
    if (ephemeral) {
      // Signed out, but half-way through a two-factor login: keep the pending challenge.
      sessionStorage.setItem(EPHEMERAL_KEY, ephemeral);
      dispatch(authActions.ephemeralTokenReceived(ephemeral));
    }
    return;
  }
  dispatch(authActions.loginInit());
  await dispatch(fetchUser());
};

export const fetchUser = (): TThunk<Promise<TUser | null>> => async (dispatch) => {
  try {
    const user = await dispatch(
      getUserApi.endpoints.getUser.initiate(undefined, { subscribe: false, forceRefetch: true }),
    ).unwrap();
    dispatch(authActions.userLoaded({ user, access: getAccessToken(), refresh: getRefreshToken() }));
    return user;
  } catch (e) {
    dispatch(authActions.userFailed(e instanceof Error ? e.message : 'user_fetch_failed'));
    return null;
  }
};

function authenticate(dispatch: TAppDispatch, session: TSessionResponse) {
  storeTokens(session);
  sessionStorage.removeItem(EPHEMERAL_KEY);
  dispatch(authActions.loggedIn(session));
}

/** Returns 'code' when a second step (TOTP or recovery code) follows. */
export const login =
  (body: TLoginBody): TThunk<Promise<'authenticated' | 'code'>> =>
  async (dispatch) => {
    const res = await dispatch(loginApi.endpoints.login.initiate(body)).unwrap();
    if ('ephemeral_token' in res) {
      sessionStorage.setItem(EPHEMERAL_KEY, res.ephemeral_token);
      dispatch(authActions.ephemeralTokenReceived(res.ephemeral_token));
      return 'code';
    }
    authenticate(dispatch, res);
    return 'authenticated';
  };

export const loginWithCode =
  (code: string): TThunk<Promise<void>> =>
  async (dispatch, getState) => {
    const ephemeral_token = getState().auth.ephemeral_token ?? sessionStorage.getItem(EPHEMERAL_KEY) ?? '';
    const res = await dispatch(loginCodeApi.endpoints.loginCode.initiate({ ephemeral_token, code })).unwrap();
    authenticate(dispatch, res);
  };

/** Clears accessToken, refreshToken and agreementAccepted and resets to signed-out (spec §4). */
export const logout = (): TThunk<void> => (dispatch) => {
  const refresh = getRefreshToken();
  if (refresh) {
    // Fire and forget: revoke the refresh token server-side; the local session ends regardless.
    void dispatch(logoutApi.endpoints.logoutSession.initiate({ refresh })).catch(() => undefined);
  }
  clearSession();
  sessionStorage.removeItem(EPHEMERAL_KEY);
  dispatch(api.util.resetApiState());
  dispatch(authActions.loggedOut());
};
