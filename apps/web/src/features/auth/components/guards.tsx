import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { FullPageSpinner } from '../../../components/ui/loader.tsx';
import { paths } from '../../../config/paths.ts';
import { useAuth } from '../auth-provider.tsx';
import { onboardingRedirect } from '../onboarding.ts';

export type TFromState = { from?: { pathname: string; search?: string; hash?: string } };

function fromPath(state: unknown): string {
  const from = (state as TFromState | null)?.from;
  if (!from?.pathname || from.pathname === paths.login) return paths.home;
  return `${from.pathname}${from.search ?? ''}${from.hash ?? ''}`;
}

/** Public-only routes: a signed-in visitor goes back where they came from, else to /. */
export function GuestGuard({ children }: { children: ReactNode }) {
  const { isAuthenticated, loading } = useAuth();
  const location = useLocation();
  if (loading) return <FullPageSpinner />;
  if (isAuthenticated) return <Navigate to={fromPath(location.state)} replace />;
  return children;
}

/** Signed-in routes: visitors go to /login and the requested path is remembered. */
export function AuthGuard({ children }: { children: ReactNode }) {
  const { isAuthenticated, loading } = useAuth();
  const location = useLocation();
  if (loading) return <FullPageSpinner />;
  if (!isAuthenticated)
    return <Navigate to={paths.login} replace state={{ from: location } satisfies TFromState} />;
  return children;
}

/** Sends a signed-in user to the first onboarding step not yet done; only that step's page is open. */
export function OnboardingGate({ children }: { children: ReactNode }) {
  const { user } = useAuth();
  const { pathname } = useLocation();
  const target = onboardingRedirect(user);
  if (target && pathname !== target) return <Navigate to={target} replace />;
  return children;
}
