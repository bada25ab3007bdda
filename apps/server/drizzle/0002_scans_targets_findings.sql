CREATE TABLE "targets" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"target_type" text NOT NULL,
	"value" text NOT NULL,
	"display_name" text NOT NULL,
	"main_domain" text,
	"ip_count" integer DEFAULT 0 NOT NULL,
	"disabled" boolean DEFAULT false NOT NULL,
	"verified" boolean DEFAULT false NOT NULL,
	"verified_at" timestamp with time zone,
	"verification_token" text NOT NULL,
	"last_check_at" timestamp with time zone,
	"last_check_detail" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "scan_assets" (
	"scan_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"data" jsonb NOT NULL,
	CONSTRAINT "scan_assets_scan_id_kind_key_pk" PRIMARY KEY("scan_id","kind","key")
);
--> statement-breakpoint
CREATE TABLE "scan_scope" (
	"scan_id" uuid NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"main_domain" text,
	"ip_addresses" text[] NOT NULL,
	"opened_ports" integer[] NOT NULL,
	"services" jsonb NOT NULL,
	"technologies" jsonb NOT NULL,
	"emails" text[] NOT NULL,
	"cnames" text[] NOT NULL,
	"urls" text[] NOT NULL,
	CONSTRAINT "scan_scope_scan_id_name_pk" PRIMARY KEY("scan_id","name")
);
--> statement-breakpoint
CREATE TABLE "scan_targets" (
	"scan_id" uuid NOT NULL,
	"target_id" uuid NOT NULL,
	CONSTRAINT "scan_targets_scan_id_target_id_pk" PRIMARY KEY("scan_id","target_id")
);
--> statement-breakpoint
CREATE TABLE "scans" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"status" text DEFAULT 'created' NOT NULL,
	"target_type" text NOT NULL,
	"scan_type" text NOT NULL,
	"custom_scan_config" boolean DEFAULT false NOT NULL,
	"classes" text[] DEFAULT '{}'::text[] NOT NULL,
	"subclasses" text[] DEFAULT '{}'::text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"queued_at" timestamp with time zone,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"heartbeat_at" timestamp with time zone,
	"stage" text,
	"percent" integer DEFAULT 0 NOT NULL,
	"counts" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"eta_seconds" integer,
	"skipped_hosts" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"message" text,
	"summary" jsonb,
	"attempts" integer DEFAULT 0 NOT NULL,
	"job_id" text
);
--> statement-breakpoint
CREATE TABLE "finding_sightings" (
	"scan_id" uuid NOT NULL,
	"finding_id" uuid NOT NULL,
	"subclass" text NOT NULL,
	"user_id" uuid NOT NULL,
	"host" text,
	"change" text NOT NULL,
	"seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "finding_sightings_scan_id_finding_id_pk" PRIMARY KEY("scan_id","finding_id")
);
--> statement-breakpoint
CREATE TABLE "findings_exploit_db" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"target_id" uuid NOT NULL,
	"fingerprint" text NOT NULL,
	"severity" text NOT NULL,
	"severity_ordering" integer NOT NULL,
	"main_domain" text NOT NULL,
	"status" text DEFAULT 'new' NOT NULL,
	"resolved" boolean DEFAULT false NOT NULL,
	"resolved_reason" text,
	"resolved_at" timestamp with time zone,
	"add_ts" timestamp with time zone DEFAULT now() NOT NULL,
	"first_seen" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen" timestamp with time zone DEFAULT now() NOT NULL,
	"fixed_at" timestamp with time zone,
	"first_scan_id" uuid,
	"last_scan_id" uuid,
	"fixed_scan_id" uuid,
	"detail" jsonb NOT NULL,
	"tech" text NOT NULL,
	"version" text NOT NULL,
	"cve" text NOT NULL,
	"host" text NOT NULL,
	"subdomain" text NOT NULL,
	"port" integer,
	"cvss_score" real,
	"info_created_ts" timestamp with time zone,
	"info_updated_ts" timestamp with time zone,
	"last_update_ts" timestamp with time zone DEFAULT now() NOT NULL,
	"last_check_ts" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "findings_exploit_scanner" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"target_id" uuid NOT NULL,
	"fingerprint" text NOT NULL,
	"severity" text NOT NULL,
	"severity_ordering" integer NOT NULL,
	"main_domain" text NOT NULL,
	"status" text DEFAULT 'new' NOT NULL,
	"resolved" boolean DEFAULT false NOT NULL,
	"resolved_reason" text,
	"resolved_at" timestamp with time zone,
	"add_ts" timestamp with time zone DEFAULT now() NOT NULL,
	"first_seen" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen" timestamp with time zone DEFAULT now() NOT NULL,
	"fixed_at" timestamp with time zone,
	"first_scan_id" uuid,
	"last_scan_id" uuid,
	"fixed_scan_id" uuid,
	"detail" jsonb NOT NULL,
	"template_id" text NOT NULL,
	"name" text NOT NULL,
	"host" text NOT NULL,
	"subdomain" text NOT NULL,
	"matched_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "findings_leakcheck" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"target_id" uuid NOT NULL,
	"fingerprint" text NOT NULL,
	"severity" text NOT NULL,
	"severity_ordering" integer NOT NULL,
	"main_domain" text NOT NULL,
	"status" text DEFAULT 'new' NOT NULL,
	"resolved" boolean DEFAULT false NOT NULL,
	"resolved_reason" text,
	"resolved_at" timestamp with time zone,
	"add_ts" timestamp with time zone DEFAULT now() NOT NULL,
	"first_seen" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen" timestamp with time zone DEFAULT now() NOT NULL,
	"fixed_at" timestamp with time zone,
	"first_scan_id" uuid,
	"last_scan_id" uuid,
	"fixed_scan_id" uuid,
	"detail" jsonb NOT NULL,
	"email" text NOT NULL,
	"password" text NOT NULL,
	"password_encrypted" text,
	"leak_date" text,
	"sources" text[] NOT NULL
);
--> statement-breakpoint
CREATE TABLE "leak_records" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"email" text NOT NULL,
	"domain" text NOT NULL,
	"password_encrypted" text,
	"digest" text DEFAULT '' NOT NULL,
	"leak_date" text DEFAULT '' NOT NULL,
	"sources" text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "vuln_products" (
	"key" text NOT NULL,
	"vuln_id" text NOT NULL,
	CONSTRAINT "vuln_products_key_vuln_id_pk" PRIMARY KEY("key","vuln_id")
);
--> statement-breakpoint
CREATE TABLE "vuln_records" (
	"id" text PRIMARY KEY NOT NULL,
	"source" text NOT NULL,
	"last_modified" text,
	"record" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "targets" ADD CONSTRAINT "targets_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scan_assets" ADD CONSTRAINT "scan_assets_scan_id_scans_id_fk" FOREIGN KEY ("scan_id") REFERENCES "public"."scans"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scan_scope" ADD CONSTRAINT "scan_scope_scan_id_scans_id_fk" FOREIGN KEY ("scan_id") REFERENCES "public"."scans"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scan_targets" ADD CONSTRAINT "scan_targets_scan_id_scans_id_fk" FOREIGN KEY ("scan_id") REFERENCES "public"."scans"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scan_targets" ADD CONSTRAINT "scan_targets_target_id_targets_id_fk" FOREIGN KEY ("target_id") REFERENCES "public"."targets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scans" ADD CONSTRAINT "scans_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "finding_sightings" ADD CONSTRAINT "finding_sightings_scan_id_scans_id_fk" FOREIGN KEY ("scan_id") REFERENCES "public"."scans"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "findings_exploit_db" ADD CONSTRAINT "findings_exploit_db_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "findings_exploit_db" ADD CONSTRAINT "findings_exploit_db_target_id_targets_id_fk" FOREIGN KEY ("target_id") REFERENCES "public"."targets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "findings_exploit_scanner" ADD CONSTRAINT "findings_exploit_scanner_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "findings_exploit_scanner" ADD CONSTRAINT "findings_exploit_scanner_target_id_targets_id_fk" FOREIGN KEY ("target_id") REFERENCES "public"."targets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "findings_leakcheck" ADD CONSTRAINT "findings_leakcheck_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "findings_leakcheck" ADD CONSTRAINT "findings_leakcheck_target_id_targets_id_fk" FOREIGN KEY ("target_id") REFERENCES "public"."targets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vuln_products" ADD CONSTRAINT "vuln_products_vuln_id_vuln_records_id_fk" FOREIGN KEY ("vuln_id") REFERENCES "public"."vuln_records"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "targets_user_value_key" ON "targets" USING btree ("user_id","target_type","value") WHERE "targets"."disabled" = false;--> statement-breakpoint
CREATE INDEX "targets_user_idx" ON "targets" USING btree ("user_id","target_type","created_at");--> statement-breakpoint
CREATE INDEX "scan_targets_target_idx" ON "scan_targets" USING btree ("target_id");--> statement-breakpoint
CREATE INDEX "scans_user_created_idx" ON "scans" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "scans_user_status_idx" ON "scans" USING btree ("user_id","status");--> statement-breakpoint
CREATE INDEX "scans_user_started_idx" ON "scans" USING btree ("user_id","started_at");--> statement-breakpoint
CREATE INDEX "scans_user_finished_idx" ON "scans" USING btree ("user_id","finished_at");--> statement-breakpoint
CREATE INDEX "finding_sightings_finding_idx" ON "finding_sightings" USING btree ("finding_id");--> statement-breakpoint
CREATE INDEX "finding_sightings_scan_sub_idx" ON "finding_sightings" USING btree ("scan_id","subclass");--> statement-breakpoint
CREATE UNIQUE INDEX "fdb_target_fp_key" ON "findings_exploit_db" USING btree ("target_id","fingerprint");--> statement-breakpoint
CREATE INDEX "fdb_user_tech_idx" ON "findings_exploit_db" USING btree ("user_id","tech");--> statement-breakpoint
CREATE INDEX "fdb_user_version_idx" ON "findings_exploit_db" USING btree ("user_id","version");--> statement-breakpoint
CREATE INDEX "fdb_user_info_created_idx" ON "findings_exploit_db" USING btree ("user_id","info_created_ts");--> statement-breakpoint
CREATE INDEX "fdb_user_info_updated_idx" ON "findings_exploit_db" USING btree ("user_id","info_updated_ts");--> statement-breakpoint
CREATE INDEX "fdb_user_main_domain_idx" ON "findings_exploit_db" USING btree ("user_id","main_domain");--> statement-breakpoint
CREATE INDEX "fdb_user_last_update_idx" ON "findings_exploit_db" USING btree ("user_id","last_update_ts");--> statement-breakpoint
CREATE INDEX "fdb_user_last_check_idx" ON "findings_exploit_db" USING btree ("user_id","last_check_ts");--> statement-breakpoint
CREATE INDEX "fdb_user_cve_idx" ON "findings_exploit_db" USING btree ("user_id","cve");--> statement-breakpoint
CREATE INDEX "fdb_user_add_ts_idx" ON "findings_exploit_db" USING btree ("user_id","add_ts");--> statement-breakpoint
CREATE INDEX "fdb_user_severity_idx" ON "findings_exploit_db" USING btree ("user_id","severity_ordering");--> statement-breakpoint
CREATE UNIQUE INDEX "fes_target_fp_key" ON "findings_exploit_scanner" USING btree ("target_id","fingerprint");--> statement-breakpoint
CREATE INDEX "fes_user_name_idx" ON "findings_exploit_scanner" USING btree ("user_id","name");--> statement-breakpoint
CREATE INDEX "fes_user_severity_idx" ON "findings_exploit_scanner" USING btree ("user_id","severity");--> statement-breakpoint
CREATE INDEX "fes_user_sevord_idx" ON "findings_exploit_scanner" USING btree ("user_id","severity_ordering");--> statement-breakpoint
CREATE INDEX "fes_user_host_idx" ON "findings_exploit_scanner" USING btree ("user_id","host");--> statement-breakpoint
CREATE INDEX "fes_user_main_domain_idx" ON "findings_exploit_scanner" USING btree ("user_id","main_domain");--> statement-breakpoint
CREATE INDEX "fes_user_subdomain_idx" ON "findings_exploit_scanner" USING btree ("user_id","subdomain");--> statement-breakpoint
CREATE INDEX "fes_user_add_ts_idx" ON "findings_exploit_scanner" USING btree ("user_id","add_ts");--> statement-breakpoint
CREATE UNIQUE INDEX "flc_target_fp_key" ON "findings_leakcheck" USING btree ("target_id","fingerprint");--> statement-breakpoint
CREATE INDEX "flc_user_email_idx" ON "findings_leakcheck" USING btree ("user_id","email");--> statement-breakpoint
CREATE INDEX "flc_user_password_idx" ON "findings_leakcheck" USING btree ("user_id","password");--> statement-breakpoint
CREATE INDEX "flc_user_leak_date_idx" ON "findings_leakcheck" USING btree ("user_id","leak_date");--> statement-breakpoint
CREATE INDEX "flc_user_main_domain_idx" ON "findings_leakcheck" USING btree ("user_id","main_domain");--> statement-breakpoint
CREATE INDEX "flc_user_add_ts_idx" ON "findings_leakcheck" USING btree ("user_id","add_ts");--> statement-breakpoint
CREATE UNIQUE INDEX "leak_records_key" ON "leak_records" USING btree ("email","digest","leak_date");--> statement-breakpoint
CREATE INDEX "leak_records_domain_idx" ON "leak_records" USING btree ("domain");--> statement-breakpoint
CREATE INDEX "vuln_products_vuln_idx" ON "vuln_products" USING btree ("vuln_id");