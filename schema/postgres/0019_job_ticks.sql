-- The latest tick of each scheduled job that a runner claimed (internal/jobs): the runners of
-- several workers fire for the same tick, and the one whose claim moves the job's row forward
-- runs it, so that each tick runs once across the workers.
CREATE TABLE job_ticks (
    job  text PRIMARY KEY,
    tick timestamptz NOT NULL
);
