import type { TApiError, TTokenPair } from '@perimeter/contracts';
import type { BaseQueryFn, FetchArgs, FetchBaseQueryError, FetchBaseQueryMeta } from '@reduxjs/toolkit/query';
import { createApi, fetchBaseQuery } from '@reduxjs/toolkit/query/react';
import { enqueueSnackbar } from 'notistack';
import { createElement } from 'react';
import { ServerHtml } from '../components/feedback/server-html.tsx';
import { env } from '../config/env.ts';
import { filenameFromContentDisposition } from './content-disposition.ts';
import { currentLanguage, i18n } from './i18n.ts';
import { serializeParams, type TQueryParams } from './query-string.ts';
import {
  clearSession,
  getAccessToken,
  getRefreshToken,
  sessionExpired,
  storeTokens,
  tokensRefreshed,
} from './session.ts';

/** A downloaded file: returned whole, named by the server's Content-Disposition. */
export type TFileResult = { blob: Blob; filename: string | null };

export const MAINTENANCE_FALLBACK = 'Server is under maintenance. Please try again later.';
export const REFRESH_PATH = '/users/token/refresh/';

type TArgs = string | (FetchArgs & { params?: TQueryParams });

function createRawBaseQuery(baseUrl: string) {
  return fetchBaseQuery({
    baseUrl,
    paramsSerializer: serializeParams,
    prepareHeaders: (headers) => {
      const token = getAccessToken();
      if (token && !headers.has('Authorization')) headers.set('Authorization', `Bearer ${token}`);
      headers.set('Accept-Language', currentLanguage());
      return headers;
    },
    responseHandler: async (response) => {
      const type = response.headers.get('content-type') ?? '';
      // A file is returned whole whatever its type: a JSON report is a download, not an envelope.
      const isAttachment = /^\s*attachment/i.test(response.headers.get('content-disposition') ?? '');
      if (response.ok && isAttachment) return response.blob();
      if (type.includes('application/json')) {
        const text = await response.text();
        return text ? JSON.parse(text) : null;
      }
      if (response.status === 204) return null;
      if (!response.ok) return response.text();
      return response.blob();
    },
  });
}

/** Duck-typed: the Blob of `Response.blob()` may come from another realm than the global `Blob`. */
function isBlob(value: unknown): value is Blob {
  return (
    value instanceof Blob ||
    (!!value &&
      typeof value === 'object' &&
      typeof (value as Blob).arrayBuffer === 'function' &&
      typeof (value as Blob).size === 'number')
  );
}

function unwrap(data: unknown, meta: FetchBaseQueryMeta | undefined): unknown {
  if (isBlob(data)) {
    return {
      blob: data,
      filename: filenameFromContentDisposition(meta?.response?.headers.get('content-disposition') ?? null),
    } satisfies TFileResult;
  }
  if (data && typeof data === 'object' && 'data' in data) return (data as { data: unknown }).data;
  return data;
}

// Hand-written guards for the two shapes the client itself reads: the zod schemas of contracts
// stay in the lazy page chunks, out of the initial bundle.
function isApiError(value: unknown): value is TApiError {
  if (!value || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return typeof v.detail === 'string' && typeof v.code === 'string';
}

function isTokenPair(value: unknown): value is TTokenPair {
  if (!value || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return typeof v.access === 'string' && typeof v.refresh === 'string' && v.access !== '' && v.refresh !== '';
}

export function readApiError(error: unknown): TApiError | null {
  if (!error || typeof error !== 'object' || !('data' in error)) return null;
  const data = (error as { data: unknown }).data;
  return isApiError(data) ? data : null;
}

function notifyMaintenance(error: FetchBaseQueryError) {
  const detail = readApiError(error)?.detail;
  // The operator's message is HTML (the banner shows the same text): rendered sanitized, never as tags.
  const message = detail
    ? createElement(ServerHtml, { html: detail, testId: 'maintenance-alert' })
    : i18n.t('errors.maintenance', { defaultValue: MAINTENANCE_FALLBACK });
  enqueueSnackbar(message, {
    key: 'maintenance',
    variant: 'warning',
    anchorOrigin: { vertical: 'top', horizontal: 'right' },
    preventDuplicate: true,
  });
}

/** Seconds to wait, from Retry-After (seconds or an HTTP date); null when absent. */
export function retryAfterSeconds(header: string | null | undefined, now = Date.now()): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(1, Math.ceil(seconds));
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(1, Math.ceil((at - now) / 1000));
}

function notifyRateLimited(meta: FetchBaseQueryMeta | undefined) {
  const seconds = retryAfterSeconds(meta?.response?.headers.get('retry-after'));
  const message =
    seconds === null ? i18n.t('errors.rateLimited') : i18n.t('errors.rateLimitedRetry', { count: seconds });
  enqueueSnackbar(message, {
    key: 'rate-limited',
    variant: 'warning',
    anchorOrigin: { vertical: 'top', horizontal: 'right' },
    preventDuplicate: true,
  });
}

/**
 * The one HTTP client of the app: bearer from local storage on each request, `{data}` unwrapping,
 * files returned whole, ONE shared token refresh for all concurrent 401s, logout when it fails,
 * and the maintenance alert on 503.
 */
export function createBaseQuery(
  baseUrl: string = env.VITE_API_BASE_URL,
): BaseQueryFn<TArgs, unknown, FetchBaseQueryError, object, FetchBaseQueryMeta> {
  const raw = createRawBaseQuery(baseUrl);
  let refreshing: Promise<boolean> | null = null;

  async function refresh(api: Parameters<typeof raw>[1], extra: object): Promise<boolean> {
    const refreshToken = getRefreshToken();
    if (!refreshToken) return false;
    const res = await raw(
      { url: REFRESH_PATH, method: 'POST', body: { refresh: refreshToken }, headers: { Authorization: '' } },
      api,
      extra,
    );
    const tokens = unwrap(res.data, res.meta);
    if (res.error || !isTokenPair(tokens)) return false;
    const pair = { access: tokens.access, refresh: tokens.refresh };
    storeTokens(pair);
    api.dispatch(tokensRefreshed(pair));
    return true;
  }

  return async (args, api, extra) => {
    const tokenAtSend = getAccessToken();
    let result = await raw(args, api, extra);

    if (result.error?.status === 401 && tokenAtSend) {
      let renewed: boolean;
      if (getAccessToken() !== tokenAtSend && getAccessToken()) {
        // Another request already renewed the token while this one was in flight.
        renewed = true;
      } else {
        refreshing ??= refresh(api, extra).finally(() => {
          refreshing = null;
        });
        renewed = await refreshing;
      }
      if (renewed) {
        result = await raw(args, api, extra);
      } else {
        clearSession();
        api.dispatch(sessionExpired());
        return { error: result.error, meta: result.meta };
      }
    }

    if (result.error) {
      if (result.error.status === 503) notifyMaintenance(result.error);
      if (result.error.status === 429) notifyRateLimited(result.meta);
      return { error: result.error, meta: result.meta };
    }
    return { data: unwrap(result.data, result.meta), meta: result.meta };
  };
}

/** Every cache tag of the app, in one list: a query provides them, a change invalidates them. */
export const TAGS = [
  'User',
  'Maintenance',
  'Targets',
  'TargetInfo',
  'Dashboard',
  'Billing',
  'Scans',
  'ScanProgress',
  'ScanReport',
  'ScanScope',
  'Events',
  'TargetMetrics',
  'Schedules',
  'ScheduleOverview',
] as const;

export const api = createApi({
  reducerPath: 'api',
  baseQuery: createBaseQuery(),
  tagTypes: TAGS,
  endpoints: () => ({}),
});
