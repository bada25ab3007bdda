-- Out-of-band interactions (issue #17, docs/oob.md): one correlation id per scan run; the
-- interaction server stores a call-back only when a label of its name starts with a registered,
-- unexpired correlation id. Both expire together (the oob-expire job).
CREATE TABLE "oob_correlations" (
	"id" text PRIMARY KEY NOT NULL,
	"scan_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "oob_correlations_scan_id_scans_id_fk" FOREIGN KEY ("scan_id") REFERENCES "public"."scans"("id") ON DELETE cascade ON UPDATE no action,
	CONSTRAINT "oob_correlations_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action
);
--> statement-breakpoint
CREATE INDEX "oob_correlations_scan_idx" ON "oob_correlations" USING btree ("scan_id");
--> statement-breakpoint
CREATE INDEX "oob_correlations_expires_idx" ON "oob_correlations" USING btree ("expires_at");
--> statement-breakpoint
CREATE TABLE "oob_interactions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"correlation_id" text NOT NULL,
	"full_id" text NOT NULL,
	"protocol" text NOT NULL,
	"remote_address" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"raw_request" text NOT NULL,
	"raw_response" text NOT NULL,
	"q_type" text,
	CONSTRAINT "oob_interactions_correlation_id_oob_correlations_id_fk" FOREIGN KEY ("correlation_id") REFERENCES "public"."oob_correlations"("id") ON DELETE cascade ON UPDATE no action
);
--> statement-breakpoint
CREATE INDEX "oob_interactions_full_id_idx" ON "oob_interactions" USING btree ("correlation_id","full_id");
--> statement-breakpoint
CREATE INDEX "oob_interactions_at_idx" ON "oob_interactions" USING btree ("correlation_id","at");
