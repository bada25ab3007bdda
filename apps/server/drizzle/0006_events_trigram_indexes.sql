-- Trigram (pg_trgm) GIN indexes for the events "contains" filters (ILIKE '%…%') on subdomain,
-- main_domain and e-mail. pg_trgm ships with PostgreSQL's contrib (Debian's postgresql-15 and the
-- embedded PostgreSQL both have it) and is a trusted extension (PostgreSQL 13+): a database owner
-- may create it. Where it is missing or may not be created, the filters still work, unindexed.
DO $$
BEGIN
  BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
  EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'pg_trgm is not available (%): events contains filters stay unindexed', SQLERRM;
  END;
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    CREATE INDEX IF NOT EXISTS fes_subdomain_trgm_idx ON findings_exploit_scanner USING gin (subdomain gin_trgm_ops);
    CREATE INDEX IF NOT EXISTS fes_main_domain_trgm_idx ON findings_exploit_scanner USING gin (main_domain gin_trgm_ops);
    CREATE INDEX IF NOT EXISTS fdb_subdomain_trgm_idx ON findings_exploit_db USING gin (subdomain gin_trgm_ops);
    CREATE INDEX IF NOT EXISTS fdb_main_domain_trgm_idx ON findings_exploit_db USING gin (main_domain gin_trgm_ops);
    CREATE INDEX IF NOT EXISTS flc_email_trgm_idx ON findings_leakcheck USING gin (email gin_trgm_ops);
    CREATE INDEX IF NOT EXISTS flc_main_domain_trgm_idx ON findings_leakcheck USING gin (main_domain gin_trgm_ops);
    CREATE INDEX IF NOT EXISTS flc_email_domain_trgm_idx ON findings_leakcheck USING gin ((split_part(email, '@', 2)) gin_trgm_ops);
  END IF;
END
$$;
