import { SCAN_STATUSES, type TScanStatus, type TTargetType } from '@perimeter/contracts';
import { useSearchParams } from 'react-router';
import type { TScansStatsArgs } from '../api/get-scans-stats.ts';

export const PAGE_SIZE = 10;
export const SORT_KEYS = ['created_at', 'started_at', 'finished_at', 'status', 'scan_type'] as const;
export type TSortKey = (typeof SORT_KEYS)[number];
const TARGET_TYPES: readonly TTargetType[] = ['domain', 'peer', 'network'];

function oneOf<T extends string>(value: string | null, allowed: readonly T[], fallback: T): T {
  return allowed.includes(value as T) ? (value as T) : fallback;
}

export type TScanListState = {
  page: number;
  type: TTargetType;
  /** One target's scans (user_target_id), or null for all targets of the type. */
  target: string | null;
  status: TScanStatus | 'all';
  kind: 'all' | 'full' | 'custom';
  sort: TSortKey;
  order: 'asc' | 'desc';
};

/** The Reports table's paging, sorting and filters live in the address, so a reload or a shared link keeps them. */
export function useScanListParams() {
  const [params, setParams] = useSearchParams();
  const state: TScanListState = {
    page: Math.max(0, Number.parseInt(params.get('page') ?? '0', 10) || 0),
    type: oneOf(params.get('type'), TARGET_TYPES, 'domain'),
    target: params.get('target') || null,
    status: oneOf<TScanStatus | 'all'>(params.get('status'), [...SCAN_STATUSES, 'all'], 'all'),
    kind: oneOf(params.get('kind'), ['all', 'full', 'custom'] as const, 'all'),
    sort: oneOf(params.get('sort'), SORT_KEYS, 'created_at'),
    order: oneOf(params.get('order'), ['asc', 'desc'] as const, 'desc'),
  };

  const update = (patch: Partial<TScanListState>) => {
    const next = { ...state, ...patch };
    // A target belongs to one type: another type drops the target filter.
    if (patch.type && patch.type !== state.type && !('target' in patch)) next.target = null;
    // A new filter or sort starts at the first page.
    if (!('page' in patch)) next.page = 0;
    const search = new URLSearchParams();
    if (next.page > 0) search.set('page', String(next.page));
    if (next.type !== 'domain') search.set('type', next.type);
    if (next.target) search.set('target', next.target);
    if (next.status !== 'all') search.set('status', next.status);
    if (next.kind !== 'all') search.set('kind', next.kind);
    if (next.sort !== 'created_at') search.set('sort', next.sort);
    if (next.order !== 'desc') search.set('order', next.order);
    setParams(search);
  };

  const query: TScansStatsArgs = {
    limit: PAGE_SIZE,
    offset: state.page * PAGE_SIZE,
    targets_type: state.type,
    ...(state.target ? { filter_user_target_id: state.target, filter_target_type: state.type } : {}),
    ...(state.status === 'all' ? {} : { status: [state.status] }),
    ...(state.kind === 'all' ? {} : { custom_scan_config: state.kind === 'custom' }),
    sort_key: state.sort,
    sort_order: state.order,
  };
  return { state, update, query };
}
