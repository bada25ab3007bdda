-- A subdomain filter by equality (a host picked in the events list) in the default order, severity:
-- a range of (user_id, subdomain, severity_ordering, id) read directly, as main_domain's index of
-- 0005 serves its filter. Without it the page walked the severity index past the user's other hosts
-- (exploit_scanner "h12": 1,489 pages, 10 ms at 1,000,000 findings) or read every match through the
-- trigram index and sorted them (exploit_db: 1,283 pages, 7 ms).
CREATE INDEX IF NOT EXISTS "fes_user_subdomain_sev_idx" ON "findings_exploit_scanner" USING btree ("user_id","subdomain","severity_ordering","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "fdb_user_subdomain_sev_idx" ON "findings_exploit_db" USING btree ("user_id","subdomain","severity_ordering","id");
