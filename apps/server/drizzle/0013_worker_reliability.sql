-- A scan that could not be run to its end (its job's retries used up, or its job ended without
-- it): it ends canceled with this reason, keeping what it found; the user is mailed.
ALTER TABLE "scans" ADD COLUMN "failure_reason" text;
