import { afterEach, describe, expect, it, vi } from 'vitest';
import { createStore } from '../../store/index.ts';
import { makeUser } from '../../test/render.tsx';
import { initAuth, login, loginWithCode, logout } from './auth-thunks.ts';

type TRoute = (url: URL, init: { body: string; auth: string | null }) => Response;

function mockApi(route: TRoute) {
  const calls: string[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (req: Request) => {
      const url = new URL(req.url);
      calls.push(`${req.method} ${url.pathname}`);
      return route(url, { body: await req.clone().text(), auth: req.headers.get('authorization') });
    }),
  );
  return calls;
}

const ok = (data: unknown) => Response.json({ data });
const user = makeUser();

afterEach(() => vi.unstubAllGlobals());

describe('auth state transitions', () => {
  it('starts loading and signs out at start when there is no access token', async () => {
    const store = createStore();
    expect(store.getState().auth).toMatchObject({ loading: true, isAuthenticated: false });
    await store.dispatch(initAuth());
    expect(store.getState().auth).toMatchObject({ loading: false, isAuthenticated: false, user: null });
  });

  it('runs login-init with a stored access token and authenticates on a successful user fetch', async () => {
    localStorage.setItem('accessToken', 'acc');
    localStorage.setItem('refreshToken', 'ref');
    mockApi((url, { auth }) =>
      url.pathname === '/api/users/user/' && auth === 'Bearer acc'
        ? ok(user)
        : new Response(null, { status: 500 }),
    );
    const store = createStore();
    await store.dispatch(initAuth());
    expect(store.getState().auth).toMatchObject({
      isAuthenticated: true,
      loading: false,
      user,
      accessToken: 'acc',
    });
  });

  it('resets to signed-out with loading off when the user fetch fails', async () => {
    localStorage.setItem('accessToken', 'acc');
    mockApi(() => Response.json({ detail: 'boom', code: 'internal_error' }, { status: 500 }));
    const store = createStore();
    await store.dispatch(initAuth());
    expect(store.getState().auth).toMatchObject({ isAuthenticated: false, loading: false, user: null });
  });

  it('stores only the ephemeral token when a code step follows, then authenticates by code', async () => {
    const calls = mockApi((url, { body }) => {
      if (url.pathname === '/api/users/auth/login/') return ok({ ephemeral_token: 'eph' });
      if (url.pathname === '/api/users/auth/login/code/') {
        expect(JSON.parse(body)).toEqual({ ephemeral_token: 'eph', code: '123456' });
        return ok({ access: 'acc', refresh: 'ref', user });
      }
      return new Response(null, { status: 404 });
    });
    const store = createStore();
    await expect(store.dispatch(login({ email: 'ada@example.com', password: 'x' }))).resolves.toBe('code');
    expect(store.getState().auth).toMatchObject({ ephemeral_token: 'eph', isAuthenticated: false });
    expect(localStorage.getItem('accessToken')).toBeNull();

    await store.dispatch(loginWithCode('123456'));
    expect(store.getState().auth).toMatchObject({ isAuthenticated: true, user, ephemeral_token: null });
    expect(localStorage.getItem('accessToken')).toBe('acc');
    expect(localStorage.getItem('refreshToken')).toBe('ref');
    expect(calls).toEqual(['POST /api/users/auth/login/', 'POST /api/users/auth/login/code/']);
  });

  it('keeps a pending two-factor challenge across a reload', async () => {
    mockApi(() => ok({ ephemeral_token: 'eph' }));
    const first = createStore();
    await first.dispatch(login({ email: 'ada@example.com', password: 'x' }));
    const reloaded = createStore();
    await reloaded.dispatch(initAuth());
    await reloaded.dispatch(initAuth());
    expect(reloaded.getState().auth.ephemeral_token).toBe('eph');
  });

  it('logout clears accessToken, refreshToken and agreementAccepted and revokes the refresh token', async () => {
    const calls = mockApi(() => ok({ detail: 'ok' }));
    localStorage.setItem('accessToken', 'acc');
    localStorage.setItem('refreshToken', 'ref');
    localStorage.setItem('agreementAccepted', 'true');
    localStorage.setItem('locale', 'ru');
    const store = createStore();
    store.dispatch(logout());
    expect(localStorage.getItem('accessToken')).toBeNull();
    expect(localStorage.getItem('refreshToken')).toBeNull();
    expect(localStorage.getItem('agreementAccepted')).toBeNull();
    expect(localStorage.getItem('locale')).toBe('ru');
    expect(store.getState().auth).toMatchObject({ isAuthenticated: false, loading: false });
    await vi.waitFor(() => expect(calls).toContain('POST /api/users/auth/logout/'));
  });
});
