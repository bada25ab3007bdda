import type { Memo } from '../../db/changes.ts';

/**
 * The events pages' capped totals are remembered per user (src/db/changes.ts, a UserCache) until
 * any of that user's findings, or one scan's sightings of them, change: the finding tables'
 * statement triggers notify this channel with the user's id (migration 0019). Counting is most of
 * what an events page costs PostgreSQL (up to 10,001 index entries behind a "10,000+"), and a user
 * paging through a list, re-sorting it or coming back to it asks for the same total again.
 */
export const FINDINGS_CHANGED_CHANNEL = 'findings_changed';

/** A request's remembered totals, by filter set. */
export type CountMemo = Memo<number>;
