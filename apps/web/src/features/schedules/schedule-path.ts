import type { TTarget } from '@perimeter/contracts';
import { paths } from '../../config/paths.ts';

/** Where the schedule form opens with this target chosen (the schedules page reads both parameters). */
export function schedulePath(t: Pick<TTarget, 'user_target_id' | 'target_type'>): string {
  const q = new URLSearchParams({ target_type: t.target_type, user_target_id: t.user_target_id });
  return `${paths.scheduleScan}?${q}`;
}
