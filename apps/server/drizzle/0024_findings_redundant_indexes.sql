-- Two indexes no statement needs (an audit of the bench's 142 events cases by pg_stat_user_indexes
-- and of every other statement on the finding tables: dashboard, targets, reports, scans, writes,
-- intel): each was weighed by the planner on every events page of its table (~5 µs of ~50 in a
-- bare page's plan) and written on every finding inserted.
-- (user_id, severity, id): no sort key or filter reads the severity's text (severity sorts and
-- filters by severity_ordering, fes_user_sevord_idx); 0 scans in the bench.
DROP INDEX IF EXISTS "fes_user_severity_idx";--> statement-breakpoint
-- (user_id, id) WHERE kev: the known-exploited count and sort read fdb_user_kev_sev_idx (0022),
-- the same rows under the same predicate, as well.
DROP INDEX IF EXISTS "fdb_user_kev_idx";
