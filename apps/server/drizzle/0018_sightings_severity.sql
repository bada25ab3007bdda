-- One scan's findings of some severities (the one-scan events page filtered by severity): each
-- sighting carries its finding's severity, so a scan's sightings of one severity are a range of
-- the (scan_id, subclass, severity_ordering) index instead of a probe of the scan's sightings for
-- every finding of the user with that severity (30,179 critical findings probed for a scan that saw
-- 3,039 of them: 40 ms at 1,000,000 findings). The writer sets it on insert (an insert without it
-- takes the finding's); a finding whose severity changes later (a new scan's result, vulnerability
-- intelligence) updates its sightings through the triggers below, so the filter always matches the
-- severity the page shows. A finding deleted (with its target) takes its sightings with it, so the
-- scan's counts, read on the sightings alone, count only findings that exist (as the join did).
ALTER TABLE "finding_sightings" ADD COLUMN IF NOT EXISTS "severity_ordering" integer;--> statement-breakpoint
UPDATE "finding_sightings" s SET "severity_ordering" = f."severity_ordering" FROM "findings_exploit_scanner" f WHERE s."subclass" = 'exploit_scanner' AND f."id" = s."finding_id";--> statement-breakpoint
UPDATE "finding_sightings" s SET "severity_ordering" = f."severity_ordering" FROM "findings_exploit_db" f WHERE s."subclass" = 'exploit_db' AND f."id" = s."finding_id";--> statement-breakpoint
UPDATE "finding_sightings" s SET "severity_ordering" = f."severity_ordering" FROM "findings_leakcheck" f WHERE s."subclass" = 'leakcheck' AND f."id" = s."finding_id";--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "finding_sightings_scan_sub_sev_idx" ON "finding_sightings" USING btree ("scan_id","subclass","severity_ordering");--> statement-breakpoint
DROP INDEX IF EXISTS "finding_sightings_scan_sub_idx";--> statement-breakpoint
CREATE OR REPLACE FUNCTION "sighting_severity_of_finding"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."severity_ordering" := CASE NEW."subclass"
    WHEN 'exploit_scanner' THEN (SELECT "severity_ordering" FROM "findings_exploit_scanner" WHERE "id" = NEW."finding_id")
    WHEN 'exploit_db' THEN (SELECT "severity_ordering" FROM "findings_exploit_db" WHERE "id" = NEW."finding_id")
    WHEN 'leakcheck' THEN (SELECT "severity_ordering" FROM "findings_leakcheck" WHERE "id" = NEW."finding_id")
  END;
  RETURN NEW;
END
$$;--> statement-breakpoint
DROP TRIGGER IF EXISTS "finding_sightings_severity" ON "finding_sightings";--> statement-breakpoint
CREATE TRIGGER "finding_sightings_severity" BEFORE INSERT ON "finding_sightings" FOR EACH ROW WHEN (NEW."severity_ordering" IS NULL) EXECUTE FUNCTION "sighting_severity_of_finding"();--> statement-breakpoint
CREATE OR REPLACE FUNCTION "finding_severity_to_sightings"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "finding_sightings" SET "severity_ordering" = NEW."severity_ordering" WHERE "finding_id" = NEW."id";
  RETURN NULL;
END
$$;--> statement-breakpoint
DROP TRIGGER IF EXISTS "fes_severity_to_sightings" ON "findings_exploit_scanner";--> statement-breakpoint
CREATE TRIGGER "fes_severity_to_sightings" AFTER UPDATE OF "severity_ordering" ON "findings_exploit_scanner" FOR EACH ROW WHEN (OLD."severity_ordering" IS DISTINCT FROM NEW."severity_ordering") EXECUTE FUNCTION "finding_severity_to_sightings"();--> statement-breakpoint
DROP TRIGGER IF EXISTS "fdb_severity_to_sightings" ON "findings_exploit_db";--> statement-breakpoint
CREATE TRIGGER "fdb_severity_to_sightings" AFTER UPDATE OF "severity_ordering" ON "findings_exploit_db" FOR EACH ROW WHEN (OLD."severity_ordering" IS DISTINCT FROM NEW."severity_ordering") EXECUTE FUNCTION "finding_severity_to_sightings"();--> statement-breakpoint
DROP TRIGGER IF EXISTS "flc_severity_to_sightings" ON "findings_leakcheck";--> statement-breakpoint
CREATE TRIGGER "flc_severity_to_sightings" AFTER UPDATE OF "severity_ordering" ON "findings_leakcheck" FOR EACH ROW WHEN (OLD."severity_ordering" IS DISTINCT FROM NEW."severity_ordering") EXECUTE FUNCTION "finding_severity_to_sightings"();--> statement-breakpoint
CREATE OR REPLACE FUNCTION "finding_deleted_sightings"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "finding_sightings" WHERE "finding_id" = OLD."id";
  RETURN NULL;
END
$$;--> statement-breakpoint
DELETE FROM "finding_sightings" s WHERE s."severity_ordering" IS NULL;--> statement-breakpoint
DROP TRIGGER IF EXISTS "fes_deleted_sightings" ON "findings_exploit_scanner";--> statement-breakpoint
CREATE TRIGGER "fes_deleted_sightings" AFTER DELETE ON "findings_exploit_scanner" FOR EACH ROW EXECUTE FUNCTION "finding_deleted_sightings"();--> statement-breakpoint
DROP TRIGGER IF EXISTS "fdb_deleted_sightings" ON "findings_exploit_db";--> statement-breakpoint
CREATE TRIGGER "fdb_deleted_sightings" AFTER DELETE ON "findings_exploit_db" FOR EACH ROW EXECUTE FUNCTION "finding_deleted_sightings"();--> statement-breakpoint
DROP TRIGGER IF EXISTS "flc_deleted_sightings" ON "findings_leakcheck";--> statement-breakpoint
CREATE TRIGGER "flc_deleted_sightings" AFTER DELETE ON "findings_leakcheck" FOR EACH ROW EXECUTE FUNCTION "finding_deleted_sightings"();
