import { z } from 'zod';

export const ZPingResponse = z.object({ status: z.literal('ok'), time: z.string() });
export type TPingResponse = z.infer<typeof ZPingResponse>;

/**
 * Health for load balancers and orchestrators: `live` answers while the process serves requests;
 * `ready` (200) only while the database, and for a worker the job queue, answer — else 503.
 */
export const ZHealthCheck = z.enum(['ok', 'down']);
export const ZHealthResponse = z.object({
  status: z.literal('ok'),
  checks: z.object({ database: ZHealthCheck, queue: ZHealthCheck.optional() }),
});
export type THealthResponse = z.infer<typeof ZHealthResponse>;

/** `message` is operator-written HTML; clients must sanitize it before rendering. */
export const ZMaintenanceResponse = z.object({
  maintenance_mode: z.boolean(),
  message: z.string().nullable(),
});
export type TMaintenanceResponse = z.infer<typeof ZMaintenanceResponse>;
