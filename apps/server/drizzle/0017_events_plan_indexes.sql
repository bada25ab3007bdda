-- Events sort keys without an index of their own (found by the EXPLAIN sweep of every sort key ×
-- filter × order at 1,000,000 findings, apps/server/scripts/events-explain.ts): leakcheck by
-- severity, and exploit_db by EPSS descending with the CVEs without a score last (the ascending
-- index serves `asc nulls last` only).
CREATE INDEX IF NOT EXISTS "flc_user_sevord_idx" ON "findings_leakcheck" USING btree ("user_id","severity_ordering","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "fdb_user_epss_desc_idx" ON "findings_exploit_db" USING btree ("user_id","epss_score" DESC NULLS LAST,"id" DESC);
