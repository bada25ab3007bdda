import { type ComponentType, lazy, Suspense } from 'react';
import { createBrowserRouter, Outlet, type RouteObject, useNavigation } from 'react-router';
import { ErrorPage } from '../components/errors/error-page.tsx';
import { CookieBanner } from '../components/feedback/cookie-banner.tsx';
import { TopLoader } from '../components/ui/loader.tsx';
import { paths } from '../config/paths.ts';
import { AuthGuard, GuestGuard, OnboardingGate } from '../features/auth/components/guards.tsx';
import { MinimalLayout } from '../layout/minimal-layout/index.tsx';

// The signed-in shell is its own chunk, so the sign-in page ships less JavaScript.
const MainLayout = lazy(() =>
  import('../layout/main-layout/index.tsx').then((m) => ({ default: m.MainLayout })),
);

/** Lazy route module: one chunk per page, the top bar shows while it loads. */
function page<M>(load: () => Promise<M>, pick: (m: M) => ComponentType): Pick<RouteObject, 'lazy'> {
  return { lazy: async () => ({ Component: pick(await load()) }) };
}

function RootShell() {
  const navigation = useNavigation();
  return (
    <>
      {navigation.state === 'loading' && <TopLoader />}
      <Outlet />
      <CookieBanner />
    </>
  );
}

const auth = () => import('./routes/auth.ts');
const onboarding = () => import('./routes/onboarding.ts');
const account = () => import('./routes/account.ts');
const billing = () => import('../features/billing/routes.ts');

export const routes: RouteObject[] = [
  {
    element: <RootShell />,
    errorElement: <ErrorPage />,
    hydrateFallbackElement: <TopLoader />,
    children: [
      {
        element: (
          <GuestGuard>
            <MinimalLayout />
          </GuestGuard>
        ),
        children: [
          { path: paths.login, ...page(auth, (m) => m.LoginPage) },
          { path: paths.register, ...page(auth, (m) => m.RegisterPage) },
          { path: paths.twoFactorApp, ...page(auth, (m) => m.TwoFactorAppPage) },
          { path: paths.twoFactorRecovery, ...page(auth, (m) => m.TwoFactorRecoveryPage) },
          { path: paths.passwordReset, ...page(auth, (m) => m.ForgotPasswordPage) },
          { path: paths.passwordResetConfirm, ...page(auth, (m) => m.ResetConfirmPage) },
        ],
      },
      {
        // Public: works signed out (the mailed link) and signed in.
        element: <MinimalLayout />,
        children: [{ path: paths.verifyEmail, ...page(auth, (m) => m.VerifyEmailPage) }],
      },
      {
        element: (
          <AuthGuard>
            <OnboardingGate>
              <MinimalLayout />
            </OnboardingGate>
          </AuthGuard>
        ),
        children: [
          { path: paths.confirmEmail, ...page(onboarding, (m) => m.ConfirmEmailPage) },
          { path: paths.agreement, ...page(onboarding, (m) => m.AgreementPage) },
          { path: paths.twoFactorSetup, ...page(onboarding, (m) => m.TwoFactorSetupPage) },
          { path: paths.timezone, ...page(onboarding, (m) => m.TimezonePage) },
        ],
      },
      {
        element: (
          <AuthGuard>
            <OnboardingGate>
              <Suspense fallback={<TopLoader />}>
                <MainLayout />
              </Suspense>
            </OnboardingGate>
          </AuthGuard>
        ),
        children: [
          {
            path: paths.home,
            ...page(
              () => import('../features/dashboard/components/dashboard-page.tsx'),
              (m) => m.DashboardPage,
            ),
          },
          {
            // The account tabs: one layout, the tab's page below it.
            ...page(account, (m) => m.AccountPage),
            children: [
              { path: paths.accountDetails, ...page(account, (m) => m.AccountDetails) },
              { path: paths.accountPlan, ...page(billing, (m) => m.AccountPlanPage) },
              { path: paths.accountPayment, ...page(billing, (m) => m.PaymentPage) },
              { path: paths.accountNotifications, ...page(account, (m) => m.NotificationSettings) },
            ],
          },
          { path: paths.accountPlanChoose, ...page(billing, (m) => m.ChoosePlanPage) },
          { path: paths.choosePlan, ...page(billing, (m) => m.ChoosePlanPage) },
          { path: paths.postPayment, ...page(billing, (m) => m.PostPaymentPage) },
          { path: '/checkout/:sessionId', ...page(billing, (m) => m.CheckoutPage) },
          { path: paths.twoFactorReset, ...page(account, (m) => m.TwoFactorResetPage) },
          {
            path: paths.scans,
            ...page(
              () => import('../features/new-scan/components/new-scan-page.tsx'),
              (m) => m.NewScanPage,
            ),
          },
          {
            path: paths.pastScans,
            ...page(
              () => import('../features/scans/components/past-scans-page.tsx'),
              (m) => m.PastScansPage,
            ),
          },
          {
            path: paths.scanDetail,
            ...page(
              () => import('../features/scans/components/scan-detail-page.tsx'),
              (m) => m.ScanDetailPage,
            ),
          },
          ...[paths.eventsVulnerabilities, paths.eventsCve, paths.eventsLeaks].map((path) => ({
            path,
            ...page(
              () => import('../features/events/components/events-page.tsx'),
              (m) => m.EventsPage,
            ),
          })),
          {
            path: paths.analytics,
            ...page(
              () => import('../features/analytics/components/analytics-page.tsx'),
              (m) => m.AnalyticsPage,
            ),
          },
          {
            path: paths.faq,
            ...page(
              () => import('../features/faq/components/faq-page.tsx'),
              (m) => m.FaqPage,
            ),
          },
          {
            path: paths.targets,
            ...page(
              () => import('../features/targets/components/targets-page.tsx'),
              (m) => m.TargetsPage,
            ),
          },
          {
            path: paths.targetDetail,
            ...page(
              () => import('../features/targets/components/target-detail-page.tsx'),
              (m) => m.TargetDetailPage,
            ),
          },
          {
            path: paths.scheduleScan,
            ...page(
              () => import('../features/schedules/components/schedules-page.tsx'),
              (m) => m.SchedulesPage,
            ),
          },
        ],
      },
      {
        element: <MinimalLayout />,
        children: [
          {
            path: '*',
            ...page(
              () => import('../components/errors/not-found.tsx'),
              (m) => m.NotFound,
            ),
          },
        ],
      },
    ],
  },
];

export function createAppRouter() {
  return createBrowserRouter(routes);
}
