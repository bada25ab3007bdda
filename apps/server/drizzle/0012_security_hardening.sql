CREATE TABLE "rate_limit_counters" (
	"key" text PRIMARY KEY NOT NULL,
	"hits" integer NOT NULL,
	"window_ends_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "rate_limit_counters_window_idx" ON "rate_limit_counters" USING btree ("window_ends_at");--> statement-breakpoint
CREATE TABLE "account_mail_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" text NOT NULL,
	"email" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"claimed_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "account_mail_requests_created_idx" ON "account_mail_requests" USING btree ("created_at");--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD COLUMN "links_expire_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD COLUMN "redacted_at" timestamp with time zone;--> statement-breakpoint
-- Mails already stored keep no live link: sent ones and expired ones lose their bodies' links now.
UPDATE "mail_outbox" SET
	"text" = regexp_replace("text", '/account/(confirm-email/verify|password/reset/confirm)/[^[:space:]"''<]+', '/account/\1/[removed]', 'g'),
	"html" = regexp_replace("html", '/account/(confirm-email/verify|password/reset/confirm)/[^[:space:]"''<]+', '/account/\1/[removed]', 'g'),
	"redacted_at" = now()
WHERE "kind" IN ('verify_email', 'password_reset');--> statement-breakpoint
-- Unsalted password digests go: the server re-keys them with an HMAC of the deployment key at start.
UPDATE "leak_records" SET "digest" = 'legacy:' || "id"::text WHERE "digest" <> '' AND "digest" NOT LIKE 'h1:%' AND "digest" NOT LIKE 'legacy:%';--> statement-breakpoint
-- Masks keep at most the first and the last character (and none below 8 characters).
UPDATE "findings_leakcheck" SET "password" = CASE
	WHEN char_length("password") >= 8 THEN left("password", 1) || repeat('*', char_length("password") - 2) || right("password", 1)
	ELSE repeat('*', char_length("password"))
END WHERE "password" <> '';
