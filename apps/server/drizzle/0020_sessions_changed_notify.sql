-- A signed-in request's session state (family not revoked, address verified, plan) is remembered
-- per user (src/modules/auth/auth-repo.ts sessionState, src/db/changes.ts) until that user's row or
-- refresh tokens change: every statement that inserts, updates or deletes refresh tokens, or
-- updates or deletes users, notifies `sessions_changed` with each affected user's id, delivered at
-- commit to every API process listening. As in 0019: statement triggers, one trigger per event.
CREATE OR REPLACE FUNCTION "notify_sessions_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  uid uuid;
BEGIN
  IF TG_TABLE_NAME = 'users' THEN
    IF TG_OP = 'DELETE' THEN
      FOR uid IN SELECT "id" FROM old_rows LOOP PERFORM pg_notify('sessions_changed', uid::text); END LOOP;
    ELSE
      FOR uid IN SELECT "id" FROM new_rows LOOP PERFORM pg_notify('sessions_changed', uid::text); END LOOP;
    END IF;
  ELSIF TG_OP = 'DELETE' THEN
    FOR uid IN SELECT DISTINCT "user_id" FROM old_rows LOOP PERFORM pg_notify('sessions_changed', uid::text); END LOOP;
  ELSE
    FOR uid IN SELECT DISTINCT "user_id" FROM new_rows LOOP PERFORM pg_notify('sessions_changed', uid::text); END LOOP;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
DROP TRIGGER IF EXISTS "refresh_tokens_sessions_insert" ON "refresh_tokens";--> statement-breakpoint
CREATE TRIGGER "refresh_tokens_sessions_insert" AFTER INSERT ON "refresh_tokens" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "notify_sessions_changed"();--> statement-breakpoint
DROP TRIGGER IF EXISTS "refresh_tokens_sessions_update" ON "refresh_tokens";--> statement-breakpoint
CREATE TRIGGER "refresh_tokens_sessions_update" AFTER UPDATE ON "refresh_tokens" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "notify_sessions_changed"();--> statement-breakpoint
DROP TRIGGER IF EXISTS "refresh_tokens_sessions_delete" ON "refresh_tokens";--> statement-breakpoint
CREATE TRIGGER "refresh_tokens_sessions_delete" AFTER DELETE ON "refresh_tokens" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "notify_sessions_changed"();--> statement-breakpoint
DROP TRIGGER IF EXISTS "users_sessions_update" ON "users";--> statement-breakpoint
CREATE TRIGGER "users_sessions_update" AFTER UPDATE ON "users" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "notify_sessions_changed"();--> statement-breakpoint
DROP TRIGGER IF EXISTS "users_sessions_delete" ON "users";--> statement-breakpoint
CREATE TRIGGER "users_sessions_delete" AFTER DELETE ON "users" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "notify_sessions_changed"();
