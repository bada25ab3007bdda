-- The events' exploit_db list "without" (src/modules/findings/findings-tech-repo.ts) remembers its
-- total per filter set with each user's other totals (src/modules/findings/findings-counts.ts)
-- instead of counting the user's technology_sightings on every page: with a contains filter on the
-- subdomain that count tested every row's host against the pattern (6,900 rows of the bench's user,
-- ~5 ms of PostgreSQL's CPU per page; the bench's two such cases were a third of its statements'
-- time). Every statement that inserts, updates or deletes technology_sightings (a scan finishing, a
-- finished scan's scope written, a CVE finding inserted or deleted flipping has_cve, a user deleted)
-- notifies `findings_changed` with each affected user's id (the function of 0019), so a change is
-- in the very next page, in every API process.
DROP TRIGGER IF EXISTS "technology_sightings_changed_insert" ON "technology_sightings";--> statement-breakpoint
CREATE TRIGGER "technology_sightings_changed_insert" AFTER INSERT ON "technology_sightings" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "notify_findings_changed"();--> statement-breakpoint
DROP TRIGGER IF EXISTS "technology_sightings_changed_update" ON "technology_sightings";--> statement-breakpoint
CREATE TRIGGER "technology_sightings_changed_update" AFTER UPDATE ON "technology_sightings" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "notify_findings_changed"();--> statement-breakpoint
DROP TRIGGER IF EXISTS "technology_sightings_changed_delete" ON "technology_sightings";--> statement-breakpoint
CREATE TRIGGER "technology_sightings_changed_delete" AFTER DELETE ON "technology_sightings" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "notify_findings_changed"();
