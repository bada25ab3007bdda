import { render, screen } from '@testing-library/react';
import { Route, Routes, useLocation } from 'react-router';
import { describe, expect, it } from 'vitest';
import { makeUser, renderApp, signedIn, signedOut } from '../../test/render.tsx';
import { useAuth } from './auth-provider.tsx';
import { initialAuthState } from './auth-slice.ts';
import { AuthGuard, GuestGuard, OnboardingGate } from './components/guards.tsx';
import { onboardingRedirect } from './onboarding.ts';

function Where({ name }: { name: string }) {
  const location = useLocation();
  const from = (location.state as { from?: { pathname: string } } | null)?.from?.pathname ?? '';
  return (
    <p>
      {name} at {location.pathname}
      {from && ` from ${from}`}
    </p>
  );
}

const ONBOARDING = [
  '/account/confirm-email',
  '/account/agreement',
  '/settings/two_factor_authentication/setup/intro',
  '/account/timezone',
];

function appRoutes() {
  return (
    <Routes>
      <Route
        path="/login"
        element={
          <GuestGuard>
            <Where name="login" />
          </GuestGuard>
        }
      />
      {[...ONBOARDING, '/', '/analytics'].map((path) => (
        <Route
          key={path}
          path={path}
          element={
            <AuthGuard>
              <OnboardingGate>
                <Where name="page" />
              </OnboardingGate>
            </AuthGuard>
          }
        />
      ))}
    </Routes>
  );
}

function Probe() {
  useAuth();
  return null;
}

describe('onboarding gate order', () => {
  it('checks e-mail, then agreement, then two-factor, then time zone', () => {
    const none = makeUser(
      { tz: null },
      { email_verified: false, agreement_status: false, '2fa_enable': false },
    );
    expect(onboardingRedirect(none)).toBe(ONBOARDING[0]);
    expect(onboardingRedirect({ ...none, metadata: { ...none.metadata, email_verified: true } })).toBe(
      ONBOARDING[1],
    );
    expect(
      onboardingRedirect({
        ...none,
        metadata: { email_verified: true, agreement_status: true, '2fa_enable': false },
      }),
    ).toBe(ONBOARDING[2]);
    expect(
      onboardingRedirect({
        ...none,
        metadata: { email_verified: true, agreement_status: true, '2fa_enable': true },
      }),
    ).toBe(ONBOARDING[3]);
    expect(onboardingRedirect(makeUser())).toBeNull();
    // A later step never wins over an earlier one.
    expect(onboardingRedirect(makeUser({ tz: null }, { email_verified: false }))).toBe(ONBOARDING[0]);
  });

  it.each([
    [{ email_verified: false }, ONBOARDING[0]],
    [{ agreement_status: false }, ONBOARDING[1]],
    [{ '2fa_enable': false }, ONBOARDING[2]],
  ])('sends a signed-in user with %o from the main area to %s', (metadata, target) => {
    renderApp(appRoutes(), { route: '/analytics', auth: signedIn(makeUser({}, metadata)) });
    expect(screen.getByText(`page at ${target}`)).toBeInTheDocument();
  });

  it('sends a user without a time zone to the time-zone page, and lets them stay there', () => {
    renderApp(appRoutes(), { route: '/', auth: signedIn(makeUser({ tz: null })) });
    expect(screen.getByText('page at /account/timezone')).toBeInTheDocument();
  });

  it('does not let an unverified user skip ahead to a later onboarding step', () => {
    renderApp(appRoutes(), {
      route: '/account/timezone',
      auth: signedIn(makeUser({}, { email_verified: false })),
    });
    expect(screen.getByText('page at /account/confirm-email')).toBeInTheDocument();
  });

  it('opens the main area once every step passed', () => {
    renderApp(appRoutes(), { route: '/analytics', auth: signedIn(makeUser()) });
    expect(screen.getByText('page at /analytics')).toBeInTheDocument();
  });
});

describe('route guards', () => {
  it('sends visitors of a signed-in route to /login and remembers the path', () => {
    renderApp(appRoutes(), { route: '/analytics', auth: signedOut });
    expect(screen.getByText('login at /login from /analytics')).toBeInTheDocument();
  });

  it('shows a loading indicator while auth is loading', () => {
    renderApp(appRoutes(), { route: '/analytics', auth: initialAuthState });
    expect(screen.getByRole('progressbar')).toBeInTheDocument();
  });

  it('sends a signed-in visitor of a public-only route back where they came from', () => {
    const { container } = renderApp(
      <Routes>
        <Route
          path="/login"
          element={
            <GuestGuard>
              <Where name="login" />
            </GuestGuard>
          }
        />
        <Route path="/analytics" element={<Where name="analytics" />} />
        <Route path="/" element={<Where name="home" />} />
      </Routes>,
      { route: '/login', auth: signedIn(makeUser()) },
    );
    expect(container).toHaveTextContent('home at /');
  });

  it('uses the remembered origin when there is one', () => {
    const { container } = renderApp(
      <Routes>
        <Route
          path="/login"
          element={
            <GuestGuard>
              <Where name="login" />
            </GuestGuard>
          }
        />
        <Route path="/analytics" element={<Where name="analytics" />} />
      </Routes>,
      {
        route: { pathname: '/login', state: { from: { pathname: '/analytics' } } },
        auth: signedIn(makeUser()),
      },
    );
    expect(container).toHaveTextContent('analytics at /analytics');
  });
});

describe('auth context', () => {
  it("throws 'context must be use inside provider' outside its provider", () => {
    const spy = console.error;
    console.error = () => {};
    try {
      expect(() => render(<Probe />)).toThrow('context must be use inside provider');
    } finally {
      console.error = spy;
    }
  });
});
