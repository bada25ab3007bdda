import { configureStore } from '@reduxjs/toolkit';
import { createApi } from '@reduxjs/toolkit/query/react';
import { render, screen, waitFor } from '@testing-library/react';
import type { ReactElement } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { authSlice, initialAuthState } from '../features/auth/auth-slice.ts';
import { createBaseQuery, MAINTENANCE_FALLBACK, retryAfterSeconds, type TFileResult } from './api-client.ts';
import { serializeParams } from './query-string.ts';

const enqueueSnackbar = vi.hoisted(() => vi.fn());
vi.mock('notistack', () => ({ enqueueSnackbar }));

const BASE = 'http://api.test/api';

function json(status: number, body: unknown, headers: Record<string, string> = {}) {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

function setup() {
  const testApi = createApi({
    reducerPath: 'api',
    baseQuery: createBaseQuery(BASE),
    endpoints: (b) => ({
      me: b.query<{ id: string }, string>({ query: (tag) => ({ url: '/users/user/', params: { tag } }) }),
      scans: b.query<unknown, { status: string[] }>({ query: (params) => ({ url: '/main/scans', params }) }),
      report: b.mutation<TFileResult, void>({
        query: () => ({ url: '/main/report', method: 'POST', body: {} }),
      }),
    }),
  });
  const store = configureStore({
    reducer: { api: testApi.reducer, auth: authSlice.reducer },
    preloadedState: { auth: { ...initialAuthState, isAuthenticated: true, loading: false } },
    middleware: (d) => d({ serializableCheck: false }).concat(testApi.middleware),
  });
  return { testApi, store };
}

type TCall = { url: string; auth: string | null; body: string };

function mockFetch(handler: (call: TCall) => Response | Promise<Response>) {
  const calls: TCall[] = [];
  const fetchMock = vi.fn(async (input: Request) => {
    const call = {
      url: input.url,
      auth: input.headers.get('authorization'),
      body: await input.clone().text(),
    };
    calls.push(call);
    return handler(call);
  });
  vi.stubGlobal('fetch', fetchMock);
  return calls;
}

beforeEach(() => {
  vi.unstubAllGlobals();
  enqueueSnackbar.mockClear();
  localStorage.setItem('accessToken', 'old-access');
  localStorage.setItem('refreshToken', 'old-refresh');
});

describe('API client', () => {
  it('sends the bearer token from local storage and unwraps {data}', async () => {
    const calls = mockFetch(() => json(200, { data: { id: 'u1' } }));
    const { testApi, store } = setup();
    const res = await store.dispatch(testApi.endpoints.me.initiate('a'));
    expect(res.data).toEqual({ id: 'u1' });
    expect(calls[0]?.auth).toBe('Bearer old-access');
  });

  it('makes exactly one refresh for concurrent 401s, stores the new tokens and retries each request', async () => {
    let refreshes = 0;
    const calls = mockFetch(async (call) => {
      if (call.url.endsWith('/users/token/refresh/')) {
        refreshes++;
        expect(JSON.parse(call.body)).toEqual({ refresh: 'old-refresh' });
        await new Promise((r) => setTimeout(r, 20));
        return json(200, { data: { access: 'new-access', refresh: 'new-refresh' } });
      }
      if (call.auth === 'Bearer new-access') return json(200, { data: { id: call.url } });
      return json(401, { detail: 'expired', code: 'token_invalid' });
    });
    const { testApi, store } = setup();
    const results = await Promise.all(
      ['a', 'b', 'c', 'd'].map((tag) => store.dispatch(testApi.endpoints.me.initiate(tag))),
    );
    expect(refreshes).toBe(1);
    for (const r of results) expect(r.error).toBeUndefined();
    expect(localStorage.getItem('accessToken')).toBe('new-access');
    expect(localStorage.getItem('refreshToken')).toBe('new-refresh');
    expect(calls.filter((c) => c.auth === 'Bearer new-access')).toHaveLength(4);
  });

  it('logs out and fails when the refresh fails', async () => {
    localStorage.setItem('agreementAccepted', 'true');
    mockFetch((call) =>
      call.url.endsWith('/users/token/refresh/')
        ? json(401, { detail: 'revoked', code: 'token_invalid' })
        : json(401, { detail: 'expired', code: 'token_invalid' }),
    );
    const { testApi, store } = setup();
    const res = await store.dispatch(testApi.endpoints.me.initiate('x'));
    expect(res.error).toMatchObject({ status: 401 });
    expect(localStorage.getItem('accessToken')).toBeNull();
    expect(localStorage.getItem('refreshToken')).toBeNull();
    expect(localStorage.getItem('agreementAccepted')).toBeNull();
    expect(store.getState().auth).toMatchObject({ isAuthenticated: false, user: null, loading: false });
  });

  it('logs out without trying a refresh when no refresh token is stored', async () => {
    localStorage.removeItem('refreshToken');
    const calls = mockFetch(() => json(401, { detail: 'expired', code: 'token_invalid' }));
    const { testApi, store } = setup();
    const res = await store.dispatch(testApi.endpoints.me.initiate('x'));
    expect(res.error).toMatchObject({ status: 401 });
    expect(calls).toHaveLength(1);
    expect(store.getState().auth.isAuthenticated).toBe(false);
    expect(localStorage.getItem('accessToken')).toBeNull();
  });

  it("shows a top-right warning with the server's detail on 503 and fails the request", async () => {
    mockFetch(() => json(503, { detail: 'Back at 14:00 UTC', code: 'maintenance' }));
    const { testApi, store } = setup();
    const res = await store.dispatch(testApi.endpoints.me.initiate('x'));
    expect(res.error).toMatchObject({ status: 503 });
    expect(enqueueSnackbar).toHaveBeenCalledWith(
      expect.objectContaining({ props: expect.objectContaining({ html: 'Back at 14:00 UTC' }) }),
      expect.objectContaining({ variant: 'warning', anchorOrigin: { vertical: 'top', horizontal: 'right' } }),
    );
  });

  it('renders the HTML of a 503 detail sanitized, as the banner does', async () => {
    mockFetch(() =>
      json(503, { detail: '<b>Back</b> at 14:00 UTC<img src=x onerror="alert(1)">', code: 'maintenance' }),
    );
    const { testApi, store } = setup();
    await store.dispatch(testApi.endpoints.me.initiate('html'));
    const message = enqueueSnackbar.mock.calls[0]?.[0] as ReactElement;
    render(message);
    const alert = await screen.findByTestId('maintenance-alert');
    await waitFor(() => expect(alert.innerHTML).toBe('<b>Back</b> at 14:00 UTC'));
    expect(alert.textContent).toBe('Back at 14:00 UTC');
  });

  it('tells the retry time on 429 instead of failing silently', async () => {
    mockFetch(() =>
      json(429, { detail: 'Too many requests.', code: 'rate_limited' }, { 'retry-after': '37' }),
    );
    const { testApi, store } = setup();
    const res = await store.dispatch(testApi.endpoints.me.initiate('limited'));
    expect(res.error).toMatchObject({ status: 429 });
    expect(enqueueSnackbar).toHaveBeenCalledWith(
      'Too many requests. Try again in 37 s.',
      expect.objectContaining({ variant: 'warning', key: 'rate-limited', preventDuplicate: true }),
    );
    expect(
      retryAfterSeconds('Wed, 21 Oct 2015 07:28:30 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT')),
    ).toBe(30);
    expect(retryAfterSeconds(null)).toBeNull();
  });

  it('falls back to the standard maintenance text when a 503 has no detail', async () => {
    mockFetch(() => new Response('unavailable', { status: 503, headers: { 'content-type': 'text/plain' } }));
    const { testApi, store } = setup();
    await store.dispatch(testApi.endpoints.me.initiate('y'));
    expect(enqueueSnackbar).toHaveBeenCalledWith(MAINTENANCE_FALLBACK, expect.anything());
  });

  it('serialises arrays as repeated keys without brackets', async () => {
    const calls = mockFetch(() => json(200, { data: [] }));
    const { testApi, store } = setup();
    await store.dispatch(testApi.endpoints.scans.initiate({ status: ['running', 'done'] }));
    expect(calls[0]?.url).toBe(`${BASE}/main/scans?status=running&status=done`);
    expect(serializeParams({ a: ['x', 'y'], b: undefined, c: 1 })).toBe('a=x&a=y&c=1');
  });

  it('returns files whole with the filename from Content-Disposition', async () => {
    mockFetch(
      () =>
        new Response('%PDF-1.7', {
          status: 200,
          headers: {
            'content-type': 'application/pdf',
            'content-disposition': `attachment; filename="report.pdf"; filename*=UTF-8''otch%C3%ABt.pdf`,
          },
        }),
    );
    const { testApi, store } = setup();
    const res = await store.dispatch(testApi.endpoints.report.initiate());
    expect(res.data?.filename).toBe('otchët.pdf');
    expect(await res.data?.blob.text()).toBe('%PDF-1.7');
  });

  it('returns a JSON attachment as a file, not as an unwrapped envelope', async () => {
    const report = { data: { scan: { id: 's1' } }, generated_at: '2026-01-01T00:00:00Z' };
    mockFetch(() =>
      json(200, report, { 'content-disposition': 'attachment; filename="perimeter-report.json"' }),
    );
    const { testApi, store } = setup();
    const res = await store.dispatch(testApi.endpoints.report.initiate());
    expect(res.data?.filename).toBe('perimeter-report.json');
    expect(JSON.parse((await res.data?.blob.text()) ?? '')).toEqual(report);
  });
});
