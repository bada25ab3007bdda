-- A leak's e-mail filter by equality (an address picked in the events list) compares without case:
-- as ILIKE without wildcards it was served by the e-mail's trigram index (19 trigrams looked up for
-- user12@site13.example: 119 pages, 3–6 ms a page at 1,000,000 findings, 27 % of PostgreSQL's
-- execution time in the bench's 200-client rounds for 2 of its 142 requests). The filter is now
-- lower(email) = lower($1) — what ILIKE compares in a multi-byte database (it lowers both sides
-- with lower()) — and this index reads the matches directly.
CREATE INDEX IF NOT EXISTS "flc_user_email_lower_idx" ON "findings_leakcheck" USING btree ("user_id",lower("email"));--> statement-breakpoint
-- Known-exploited CVEs (1 % of them) in the default order, severity: a range of this index, read
-- directly. The page walked the severity index over the user's first 4,000 CVE findings, fetching
-- each to test `kev` (2,200 pages, 7 ms a page: 18 % of PostgreSQL's execution time in those rounds).
CREATE INDEX IF NOT EXISTS "fdb_user_kev_sev_idx" ON "findings_exploit_db" USING btree ("user_id","severity_ordering","id") WHERE "findings_exploit_db"."kev";
