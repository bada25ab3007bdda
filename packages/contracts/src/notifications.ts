import { z } from 'zod';

export const WEBHOOK_EVENT_NAMES = ['scan.finished', 'findings.new_critical_high'] as const;

/** POST /users/webhooks/create */
export const ZCreateWebhookBody = z.strictObject({
  url: z
    .url('Enter an http(s) URL.')
    .max(2000)
    .refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), 'Use an http or https URL.'),
  events: z.array(z.enum(WEBHOOK_EVENT_NAMES)).min(1).max(2).optional(),
});
export type TCreateWebhookBody = z.infer<typeof ZCreateWebhookBody>;

export const ZWebhookIdQuery = z.strictObject({ webhook_id: z.uuid('Unknown webhook.') });
export const ZWebhookIdBody = z.strictObject({ webhook_id: z.uuid('Unknown webhook.') });

export const ZWebhook = z.object({
  webhook_id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  enabled: z.boolean(),
  created_at: z.string(),
  last_delivery: z
    .object({ event: z.string(), status: z.string(), status_code: z.number().nullable(), at: z.string() })
    .nullable(),
});
export type TWebhook = z.infer<typeof ZWebhook>;

/** The signing secret is shown once, when the webhook is created. */
export const ZCreatedWebhook = ZWebhook.extend({ secret: z.string() });

export const ZWebhookList = z.object({ results: z.array(ZWebhook), count: z.number().int() });

export const ZWebhookTestResult = z.object({
  delivered: z.boolean(),
  status_code: z.number().nullable(),
  error: z.string().nullable(),
});
