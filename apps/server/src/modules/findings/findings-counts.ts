import type { TAllEventsBody } from '@perimeter/contracts';
import type { Memo } from '../../db/changes.ts';

/**
 * What the events pages derive from a user's findings is remembered per user (src/db/changes.ts,
 * a UserCache) until any of that user's findings, or one scan's sightings of them, change: the
 * finding tables' statement triggers notify this channel with the user's id (migration 0019).
 * - capped totals, by filter set: counting is most of what an events page costs PostgreSQL (up to
 *   10,001 index entries behind a "10,000+"), and a user paging through a list, re-sorting it or
 *   coming back to it asks for the same total again; the exploit_db list "without" (technologies
 *   with no CVE) too, its technology_sightings notifying this channel as well (migration 0026);
 * - walk bounds, by order: the sort value and id of the user's n-th finding in an order, found by
 *   reading n index entries (4,000 for a first page), which every filter walking that order shares;
 * - the user's targets of a type (a `targets_type` filter's list): the targets table notifies this
 *   channel too (migration 0023), so a page filtered by type is one statement, not two in a row
 *   each waiting for a pooled connection (the bench's slowest cases under 200 clients).
 */
export const FINDINGS_CHANGED_CHANNEL = 'findings_changed';

/** The (sort value, id) of one finding in an order; `v` null: no such finding, or a null value. */
export interface WalkBound {
  v: unknown;
  id: string;
}

/** The user's targets of one type; `ids` null: all of the user's targets are of it (no filter). */
export interface TargetsOfType {
  ids: string[] | null;
}

/** A remembered total (by filter set), walk bound (by order and position) or targets of a type. */
export type FindingsMemoValue = number | WalkBound | TargetsOfType;
export type FindingsMemo = Memo<FindingsMemoValue>;

/**
 * One request's total of a filter set (`scope`: a scan's id, '' for the user's whole history, or
 * 'technologies' for the exploit_db list "without"), as the memo remembers it: `known` if it was
 * remembered, else the request counts it and `keep`s the count. The key leaves out the sort keys:
 * the total depends on the filters, not on the order or the page. Read before the page, so a change
 * heard after this read is not hidden by what is remembered.
 */
export class RememberedTotal {
  /** The remembered total; undefined: count it, then `keep` the count. */
  readonly known: number | undefined;

  private constructor(
    private readonly memo: FindingsMemo,
    private readonly key: string,
    remembered: FindingsMemoValue | undefined,
  ) {
    this.known = typeof remembered === 'number' ? remembered : undefined;
  }

  /** The total of `body`'s filters in `scope` as remembered (one `memo.get`). */
  static async read(memo: FindingsMemo, scope: string, body: TAllEventsBody): Promise<RememberedTotal> {
    const { sort_key: _k, sort_order: _o, ...filters } = body;
    const key = JSON.stringify([scope, filters]);
    return new RememberedTotal(memo, key, await memo.get(key));
  }

  /** Remembers the request's count (nothing when the total was known). */
  keep(counted: number): void {
    if (this.known === undefined) this.memo.set(this.key, counted);
  }
}
