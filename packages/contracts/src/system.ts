import { z } from 'zod';

export const ZPingResponse = z.object({ status: z.literal('ok'), time: z.string() });
export type TPingResponse = z.infer<typeof ZPingResponse>;

/** `message` is operator-written HTML; clients must sanitize it before rendering. */
export const ZMaintenanceResponse = z.object({
  maintenance_mode: z.boolean(),
  message: z.string().nullable(),
});
export type TMaintenanceResponse = z.infer<typeof ZMaintenanceResponse>;
