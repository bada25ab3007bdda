-- The technologies each user's finished scans detected, one row per host, technology (in lower
-- case) and version, with whether the host has a CVE finding for it: the events' exploit_db list
-- "without" (detected technologies that matched no CVE, src/modules/findings/findings-tech-repo.ts).
-- That list was derived on every request from every finished scan's scope, its cost growing with
-- the scan history (30 daily scans of 875 hosts × 3 technologies: 78,750 rows aggregated, then
-- checked against all 270,000 CVE findings of the bench's user, read and sorted: 0.3–2.3 s). Now a
-- scan's technologies are folded in here when it finishes (done or canceled; or when scope rows of
-- a finished scan are written), a CVE finding inserted or deleted sets the flag of its technology,
-- and the list is an ordered walk of an index like every other events page.
CREATE TABLE IF NOT EXISTS "technology_sightings" (
	"user_id" uuid NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
	"host" text NOT NULL,
	"tech_key" text NOT NULL,
	"version" text NOT NULL,
	"main_domain" text NOT NULL,
	-- The event's stable id: md5 of user, host, technology and version (as the derived list had).
	"id" uuid NOT NULL,
	-- The smallest spelling of the name seen.
	"tech" text NOT NULL,
	-- The target types of the scans that saw it (a targets_type filter keeps a row seen by one).
	"target_types" text[] NOT NULL,
	"first_seen" timestamp with time zone NOT NULL,
	"last_seen" timestamp with time zone NOT NULL,
	"last_scan_id" uuid NOT NULL,
	-- The host has an exploit_db finding with a CVE for this technology and version.
	"has_cve" boolean NOT NULL,
	PRIMARY KEY ("user_id", "host", "tech_key", "version", "main_domain")
);--> statement-breakpoint
-- The list's sort keys over the rows it shows (no CVE), each read in order, ties by host and id.
CREATE INDEX IF NOT EXISTS "tsi_user_tech_idx" ON "technology_sightings" ("user_id", "tech_key", "host", "id") WHERE NOT "has_cve";--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "tsi_user_version_idx" ON "technology_sightings" ("user_id", "version", "host", "id") WHERE NOT "has_cve";--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "tsi_user_main_domain_idx" ON "technology_sightings" ("user_id", "main_domain", "host", "id") WHERE NOT "has_cve";--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "tsi_user_first_seen_idx" ON "technology_sightings" ("user_id", "first_seen", "host", "id") WHERE NOT "has_cve";--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "tsi_user_last_seen_idx" ON "technology_sightings" ("user_id", "last_seen", "host", "id") WHERE NOT "has_cve";--> statement-breakpoint
-- A host's CVE findings of a technology version: the flag's check.
CREATE INDEX IF NOT EXISTS "fdb_user_host_tech_idx" ON "findings_exploit_db" ("user_id", "host", lower("tech"), "version") WHERE "cve" <> '';--> statement-breakpoint
-- Folds the given scans' technologies (only scans done or canceled) in: the earliest and latest
-- sighting, the scan of the latest, the smallest spelling, the target types, the CVE flag.
CREATE OR REPLACE FUNCTION "record_technology_sightings"(scan_ids uuid[]) RETURNS void LANGUAGE sql AS $$
	INSERT INTO technology_sightings AS t
		(user_id, host, tech_key, version, main_domain, id, tech, target_types, first_seen, last_seen, last_scan_id, has_cve)
	SELECT g.*, EXISTS (
		SELECT 1 FROM findings_exploit_db f
		WHERE f.user_id = g.user_id AND f.host = g.host AND lower(f.tech) = g.tech_key AND f.version = g.version AND f.cve <> ''
	)
	FROM (
		SELECT s.user_id, a.name AS host, lower(tt.name) AS tech_key, coalesce(tt.version, '') AS version,
			coalesce(a.main_domain, a.name) AS main_domain,
			md5(s.user_id::text || '|' || a.name || '|' || lower(tt.name) || '|' || coalesce(tt.version, ''))::uuid AS id,
			min(tt.name) AS tech, array_agg(DISTINCT s.target_type ORDER BY s.target_type) AS target_types,
			min(w.at) AS first_seen, max(w.at) AS last_seen, (array_agg(s.id ORDER BY w.at DESC))[1] AS last_scan_id
		FROM scans s
		CROSS JOIN LATERAL (SELECT coalesce(s.finished_at, s.created_at) AS at) w
		JOIN scan_scope a ON a.scan_id = s.id
		CROSS JOIN LATERAL jsonb_to_recordset(a.technologies) AS tt(name text, version text)
		WHERE s.id = ANY(scan_ids) AND s.status IN ('done', 'canceled') AND tt.name IS NOT NULL
		GROUP BY 1, 2, 3, 4, 5
	) g
	-- One order of the keys for every writer: two scans of a user finishing at once lock them alike.
	ORDER BY 1, 2, 3, 4, 5
	ON CONFLICT (user_id, host, tech_key, version, main_domain) DO UPDATE SET
		tech = least(t.tech, excluded.tech),
		target_types = ARRAY(SELECT DISTINCT x FROM unnest(t.target_types || excluded.target_types) x ORDER BY x),
		first_seen = least(t.first_seen, excluded.first_seen),
		last_scan_id = CASE WHEN excluded.last_seen >= t.last_seen THEN excluded.last_scan_id ELSE t.last_scan_id END,
		last_seen = greatest(t.last_seen, excluded.last_seen),
		has_cve = excluded.has_cve
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION "scan_finished_technologies"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM record_technology_sightings(ARRAY[NEW.id]);
	RETURN NULL;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION "scope_written_technologies"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	finished uuid[] := ARRAY(
		SELECT DISTINCT n.scan_id FROM new_rows n JOIN scans s ON s.id = n.scan_id
		WHERE s.status IN ('done', 'canceled')
	);
BEGIN
	IF cardinality(finished) > 0 THEN
		PERFORM record_technology_sightings(finished);
	END IF;
	RETURN NULL;
END $$;--> statement-breakpoint
-- CVE findings are written with their host, technology, version and CVE and never change them
-- (they make the fingerprint): an insert can only set a flag, a delete (a target's, a user's) clear
-- it. The rows are locked in key order, as the fold writes them: two writers never wait on each other
-- in a circle (and a scan's fold runs when its finishing transaction commits, after its findings).
CREATE OR REPLACE FUNCTION "cve_findings_inserted_technologies"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE technology_sightings t SET has_cve = true
	FROM (
		SELECT s.user_id, s.host, s.tech_key, s.version, s.main_domain
		FROM technology_sightings s
		JOIN (SELECT DISTINCT user_id, host, lower(tech) AS tech_key, version FROM new_rows WHERE cve <> '') n
			ON s.user_id = n.user_id AND s.host = n.host AND s.tech_key = n.tech_key AND s.version = n.version
		WHERE NOT s.has_cve
		ORDER BY 1, 2, 3, 4, 5
		FOR UPDATE OF s
	) k
	WHERE t.user_id = k.user_id AND t.host = k.host AND t.tech_key = k.tech_key AND t.version = k.version
		AND t.main_domain = k.main_domain;
	RETURN NULL;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION "cve_findings_deleted_technologies"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE technology_sightings t SET has_cve = EXISTS (
		SELECT 1 FROM findings_exploit_db f
		WHERE f.user_id = t.user_id AND f.host = t.host AND lower(f.tech) = t.tech_key AND f.version = t.version AND f.cve <> ''
	)
	FROM (
		SELECT s.user_id, s.host, s.tech_key, s.version, s.main_domain
		FROM technology_sightings s
		JOIN (SELECT DISTINCT user_id, host, lower(tech) AS tech_key, version FROM old_rows WHERE cve <> '') o
			ON s.user_id = o.user_id AND s.host = o.host AND s.tech_key = o.tech_key AND s.version = o.version
		WHERE s.has_cve
		ORDER BY 1, 2, 3, 4, 5
		FOR UPDATE OF s
	) k
	WHERE t.user_id = k.user_id AND t.host = k.host AND t.tech_key = k.tech_key AND t.version = k.version
		AND t.main_domain = k.main_domain;
	RETURN NULL;
END $$;--> statement-breakpoint
DROP TRIGGER IF EXISTS "scans_finished_technologies" ON "scans";--> statement-breakpoint
-- Deferred to the commit of the transaction that finishes the scan: after its last writes to the
-- findings (marking what it no longer sees fixed), so it locks findings before sightings as the
-- finding writers do.
CREATE CONSTRAINT TRIGGER "scans_finished_technologies" AFTER UPDATE OF "status" ON "scans"
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
	WHEN (NEW.status IN ('done', 'canceled') AND OLD.status NOT IN ('done', 'canceled'))
	EXECUTE FUNCTION "scan_finished_technologies"();--> statement-breakpoint
-- Scope rows written to a scan already finished (a canceled scan's worker writing its last batch).
DROP TRIGGER IF EXISTS "scope_inserted_technologies" ON "scan_scope";--> statement-breakpoint
CREATE TRIGGER "scope_inserted_technologies" AFTER INSERT ON "scan_scope" REFERENCING NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION "scope_written_technologies"();--> statement-breakpoint
DROP TRIGGER IF EXISTS "scope_updated_technologies" ON "scan_scope";--> statement-breakpoint
CREATE TRIGGER "scope_updated_technologies" AFTER UPDATE ON "scan_scope" REFERENCING NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION "scope_written_technologies"();--> statement-breakpoint
DROP TRIGGER IF EXISTS "cve_findings_inserted_technologies" ON "findings_exploit_db";--> statement-breakpoint
CREATE TRIGGER "cve_findings_inserted_technologies" AFTER INSERT ON "findings_exploit_db" REFERENCING NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION "cve_findings_inserted_technologies"();--> statement-breakpoint
DROP TRIGGER IF EXISTS "cve_findings_deleted_technologies" ON "findings_exploit_db";--> statement-breakpoint
CREATE TRIGGER "cve_findings_deleted_technologies" AFTER DELETE ON "findings_exploit_db" REFERENCING OLD TABLE AS old_rows
	FOR EACH STATEMENT EXECUTE FUNCTION "cve_findings_deleted_technologies"();--> statement-breakpoint
-- The scans finished before this migration.
SELECT record_technology_sightings(ARRAY(SELECT id FROM scans WHERE status IN ('done', 'canceled')));
