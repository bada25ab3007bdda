DROP INDEX "fdb_user_tech_idx";--> statement-breakpoint
DROP INDEX "fdb_user_version_idx";--> statement-breakpoint
DROP INDEX "fdb_user_info_created_idx";--> statement-breakpoint
DROP INDEX "fdb_user_info_updated_idx";--> statement-breakpoint
DROP INDEX "fdb_user_main_domain_idx";--> statement-breakpoint
DROP INDEX "fdb_user_last_update_idx";--> statement-breakpoint
DROP INDEX "fdb_user_last_check_idx";--> statement-breakpoint
DROP INDEX "fdb_user_cve_idx";--> statement-breakpoint
DROP INDEX "fdb_user_add_ts_idx";--> statement-breakpoint
DROP INDEX "fdb_user_severity_idx";--> statement-breakpoint
DROP INDEX "fes_user_name_idx";--> statement-breakpoint
DROP INDEX "fes_user_severity_idx";--> statement-breakpoint
DROP INDEX "fes_user_sevord_idx";--> statement-breakpoint
DROP INDEX "fes_user_host_idx";--> statement-breakpoint
DROP INDEX "fes_user_main_domain_idx";--> statement-breakpoint
DROP INDEX "fes_user_subdomain_idx";--> statement-breakpoint
DROP INDEX "fes_user_add_ts_idx";--> statement-breakpoint
DROP INDEX "flc_user_email_idx";--> statement-breakpoint
DROP INDEX "flc_user_password_idx";--> statement-breakpoint
DROP INDEX "flc_user_leak_date_idx";--> statement-breakpoint
DROP INDEX "flc_user_main_domain_idx";--> statement-breakpoint
DROP INDEX "flc_user_add_ts_idx";--> statement-breakpoint
CREATE INDEX "fdb_user_tech_idx" ON "findings_exploit_db" USING btree ("user_id","tech","id");--> statement-breakpoint
CREATE INDEX "fdb_user_version_idx" ON "findings_exploit_db" USING btree ("user_id","version","id");--> statement-breakpoint
CREATE INDEX "fdb_user_info_created_idx" ON "findings_exploit_db" USING btree ("user_id","info_created_ts","id");--> statement-breakpoint
CREATE INDEX "fdb_user_info_updated_idx" ON "findings_exploit_db" USING btree ("user_id","info_updated_ts","id");--> statement-breakpoint
CREATE INDEX "fdb_user_main_domain_idx" ON "findings_exploit_db" USING btree ("user_id","main_domain","id");--> statement-breakpoint
CREATE INDEX "fdb_user_last_update_idx" ON "findings_exploit_db" USING btree ("user_id","last_update_ts","id");--> statement-breakpoint
CREATE INDEX "fdb_user_last_check_idx" ON "findings_exploit_db" USING btree ("user_id","last_check_ts","id");--> statement-breakpoint
CREATE INDEX "fdb_user_cve_idx" ON "findings_exploit_db" USING btree ("user_id","cve","id");--> statement-breakpoint
CREATE INDEX "fdb_user_add_ts_idx" ON "findings_exploit_db" USING btree ("user_id","add_ts","id");--> statement-breakpoint
CREATE INDEX "fdb_user_severity_idx" ON "findings_exploit_db" USING btree ("user_id","severity_ordering","id");--> statement-breakpoint
CREATE INDEX "fes_user_name_idx" ON "findings_exploit_scanner" USING btree ("user_id","name","id");--> statement-breakpoint
CREATE INDEX "fes_user_severity_idx" ON "findings_exploit_scanner" USING btree ("user_id","severity","id");--> statement-breakpoint
CREATE INDEX "fes_user_sevord_idx" ON "findings_exploit_scanner" USING btree ("user_id","severity_ordering","id");--> statement-breakpoint
CREATE INDEX "fes_user_host_idx" ON "findings_exploit_scanner" USING btree ("user_id","host","id");--> statement-breakpoint
CREATE INDEX "fes_user_main_domain_idx" ON "findings_exploit_scanner" USING btree ("user_id","main_domain","id");--> statement-breakpoint
CREATE INDEX "fes_user_subdomain_idx" ON "findings_exploit_scanner" USING btree ("user_id","subdomain","id");--> statement-breakpoint
CREATE INDEX "fes_user_add_ts_idx" ON "findings_exploit_scanner" USING btree ("user_id","add_ts","id");--> statement-breakpoint
CREATE INDEX "flc_user_email_idx" ON "findings_leakcheck" USING btree ("user_id","email","id");--> statement-breakpoint
CREATE INDEX "flc_user_password_idx" ON "findings_leakcheck" USING btree ("user_id","password","id");--> statement-breakpoint
CREATE INDEX "flc_user_leak_date_idx" ON "findings_leakcheck" USING btree ("user_id","leak_date","id");--> statement-breakpoint
CREATE INDEX "flc_user_main_domain_idx" ON "findings_leakcheck" USING btree ("user_id","main_domain","id");--> statement-breakpoint
CREATE INDEX "flc_user_add_ts_idx" ON "findings_leakcheck" USING btree ("user_id","add_ts","id");