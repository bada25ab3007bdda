import type { TExtendedTarget, TTargetInfo } from '@perimeter/contracts';
import { vi } from 'vitest';

export const zero = { critical: 0, high: 0, medium: 0, low: 0, informational: 0, unknown: 0 };

export function extended(id: string, name: string, extra: Partial<TExtendedTarget> = {}): TExtendedTarget {
  return {
    user_target_id: id,
    target_type: 'domain',
    target: name,
    display_name: name,
    main_domain: name,
    ip_count: 0,
    disabled: false,
    verified: true,
    verified_at: '2026-11-01T10:00:00Z',
    created_at: '2026-11-01T09:00:00Z',
    last_scan: null,
    periodicity: null,
    score: 100,
    status: 'verified',
    counts: zero,
    assets: null,
    ...extra,
  };
}

export function info(target: TExtendedTarget, extra: Partial<TTargetInfo> = {}): TTargetInfo {
  return { ...target, last_check_at: null, last_check_detail: null, history: [], ...extra };
}

export type THandler = (url: URL, req: Request) => Response | Promise<Response> | undefined;

/** Answers the app's API calls in the test; records `METHOD /path?query` and JSON bodies. */
export function stubApi(handler: THandler) {
  const calls: { line: string; body: unknown }[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (req: Request) => {
      const url = new URL(req.url);
      const text = req.method === 'GET' ? '' : await req.clone().text();
      calls.push({
        line: `${req.method} ${url.pathname}${url.search}`,
        body: text ? JSON.parse(text) : null,
      });
      return (
        (await handler(url, req)) ??
        Response.json({ detail: 'Not found.', code: 'not_found' }, { status: 404 })
      );
    }),
  );
  return calls;
}
