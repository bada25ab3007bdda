import type { TLoginBody, TUser } from '@perimeter/contracts';
import { createContext, type ReactNode, useContext, useEffect, useMemo } from 'react';
import { useAppDispatch, useAppSelector } from '../../store/index.ts';
import { authActions, type TAuthState } from './auth-slice.ts';
import { fetchUser, initAuth, login, loginWithCode, logout } from './auth-thunks.ts';

export type TAuthContext = TAuthState & {
  login: (body: TLoginBody) => Promise<'authenticated' | 'code'>;
  loginWithCode: (code: string) => Promise<void>;
  logout: () => void;
  refreshUser: () => Promise<TUser | null>;
  setUser: (user: TUser) => void;
  setVerified: (verified: boolean) => void;
};

const AuthContext = createContext<TAuthContext | null>(null);

export function AuthProvider({ children, skipInit = false }: { children: ReactNode; skipInit?: boolean }) {
  const dispatch = useAppDispatch();
  const state = useAppSelector((s) => s.auth);

  useEffect(() => {
    if (!skipInit) void dispatch(initAuth());
  }, [dispatch, skipInit]);

  const value = useMemo<TAuthContext>(
    () => ({
      ...state,
      login: (body) => dispatch(login(body)),
      loginWithCode: (code) => dispatch(loginWithCode(code)),
      logout: () => dispatch(logout()),
      refreshUser: () => dispatch(fetchUser()),
      setUser: (user) => dispatch(authActions.userUpdated(user)),
      setVerified: (verified) => dispatch(authActions.verifiedSet(verified)),
    }),
    [state, dispatch],
  );

  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): TAuthContext {
  const context = useContext(AuthContext);
  if (!context) throw new Error('context must be use inside provider');
  return context;
}
