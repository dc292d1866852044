-- Event ids (owned by ingest/events): an event_id identifies an event within its project for 7
-- days. The batch that stores an event claims its id here in the same transaction (INSERT ... ON
-- CONFLICT), so a repeat, sequential or concurrent, finds the first and is answered with its
-- lead and timestamp, and nothing is stored twice. A row older than 7 days is taken over by a new
-- event with its id, and a job deletes such rows.
CREATE TABLE event_ids (
    project_id text NOT NULL,
    event_id   text NOT NULL,
    lead_id    text,
    ts         bigint NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (project_id, event_id)
);
CREATE INDEX event_ids_created_at ON event_ids (created_at);
