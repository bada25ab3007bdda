import { z } from 'zod';

/** GET /intel/database: is the CVE database empty, stale or current (the UI says so, and how to fix it). */
export const ZIntelDatabase = z.object({
  state: z.enum(['empty', 'stale', 'current']),
  cve_records: z.number().int(),
  kev_records: z.number().int(),
  epss_records: z.number().int(),
  last_success_at: z.string().nullable(),
  stale_after_days: z.number().int(),
  /** The worker syncs the sources on a schedule (INTEL_SYNC). */
  sync_scheduled: z.boolean(),
});
export type TIntelDatabase = z.infer<typeof ZIntelDatabase>;
