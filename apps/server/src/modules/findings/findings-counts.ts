import type { Memo } from '../../db/changes.ts';

/**
 * What the events pages derive from a user's findings is remembered per user (src/db/changes.ts,
 * a UserCache) until any of that user's findings, or one scan's sightings of them, change: the
 * finding tables' statement triggers notify this channel with the user's id (migration 0019).
 * - capped totals, by filter set: counting is most of what an events page costs PostgreSQL (up to
 *   10,001 index entries behind a "10,000+"), and a user paging through a list, re-sorting it or
 *   coming back to it asks for the same total again;
 * - walk bounds, by order: the sort value and id of the user's n-th finding in an order, found by
 *   reading n index entries (4,000 for a first page), which every filter walking that order shares.
 */
export const FINDINGS_CHANGED_CHANNEL = 'findings_changed';

/** The (sort value, id) of one finding in an order; `v` null: no such finding, or a null value. */
export interface WalkBound {
  v: unknown;
  id: string;
}

/** A request's remembered totals (by filter set) and walk bounds (by order and position). */
export type FindingsMemo = Memo<number | WalkBound>;
