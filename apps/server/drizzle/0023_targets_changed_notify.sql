-- The events pages remember, with each user's totals (src/modules/findings/findings-counts.ts), the
-- user's targets of a type that a `targets_type` filter keeps. Every statement that inserts,
-- updates or deletes targets notifies `findings_changed` with each affected user's id (the function
-- of 0019), so a target added, deleted or changed is in the very next page, in every API process.
DROP TRIGGER IF EXISTS "targets_changed_insert" ON "targets";--> statement-breakpoint
CREATE TRIGGER "targets_changed_insert" AFTER INSERT ON "targets" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "notify_findings_changed"();--> statement-breakpoint
DROP TRIGGER IF EXISTS "targets_changed_update" ON "targets";--> statement-breakpoint
CREATE TRIGGER "targets_changed_update" AFTER UPDATE ON "targets" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "notify_findings_changed"();--> statement-breakpoint
DROP TRIGGER IF EXISTS "targets_changed_delete" ON "targets";--> statement-breakpoint
CREATE TRIGGER "targets_changed_delete" AFTER DELETE ON "targets" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "notify_findings_changed"();
