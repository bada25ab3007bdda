import { z } from 'zod';

/** One out-of-band call-back (docs/oob.md): what a target sent to Perimeter's interaction server. */
export const ZOobInteraction = z.object({
  /** The id the call-back carried (correlation id + nonce). */
  id: z.string(),
  protocol: z.enum(['dns', 'http', 'smtp', 'ldap']),
  remote_address: z.string(),
  at: z.string(),
  raw_request: z.string(),
  raw_response: z.string(),
  /** dns only */
  q_type: z.string().nullable(),
});
export type TOobInteraction = z.infer<typeof ZOobInteraction>;

/** Call-backs that reached the server after the scan had ended (newest first, at most 50 listed). */
export const ZLateInteractions = z.object({
  count: z.number().int(),
  items: z.array(ZOobInteraction),
});
export type TLateInteractions = z.infer<typeof ZLateInteractions>;
