-- The events pages remember each user's capped totals (src/modules/findings/findings-counts.ts)
-- until that user's findings change. Every statement that inserts, updates or deletes findings or
-- sightings (a scan's upserts, a resolve, a target deleted with its findings) notifies the
-- `findings_changed` channel with each affected user's id; PostgreSQL delivers it at commit to
-- every API process listening, and drops duplicates within a transaction. Statement triggers with
-- transition tables: one notification per user per statement, not per row. Transition tables
-- need one trigger per event.
CREATE OR REPLACE FUNCTION "notify_findings_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  uid uuid;
BEGIN
  IF TG_OP = 'DELETE' THEN
    FOR uid IN SELECT DISTINCT "user_id" FROM old_rows LOOP
      PERFORM pg_notify('findings_changed', uid::text);
    END LOOP;
  ELSE
    FOR uid IN SELECT DISTINCT "user_id" FROM new_rows LOOP
      PERFORM pg_notify('findings_changed', uid::text);
    END LOOP;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['findings_exploit_scanner', 'findings_exploit_db', 'findings_leakcheck', 'finding_sightings'] LOOP
    EXECUTE format('DROP TRIGGER IF EXISTS %I ON %I', t || '_changed_insert', t);
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "notify_findings_changed"()', t || '_changed_insert', t);
    EXECUTE format('DROP TRIGGER IF EXISTS %I ON %I', t || '_changed_update', t);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "notify_findings_changed"()', t || '_changed_update', t);
    EXECUTE format('DROP TRIGGER IF EXISTS %I ON %I', t || '_changed_delete', t);
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "notify_findings_changed"()', t || '_changed_delete', t);
  END LOOP;
END
$$;
