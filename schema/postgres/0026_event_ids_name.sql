-- An event_id identifies an event within its project and event name (as Meta's event_name +
-- event_id): a public call that sends another event's id under its own name no longer claims
-- that event's id. Ids claimed before this migration keep the name '', so a repeat of such an
-- event within its 7 days is taken for a new one: a name is only ever known from now on.
ALTER TABLE event_ids ADD COLUMN event_name text NOT NULL DEFAULT '';
ALTER TABLE event_ids DROP CONSTRAINT event_ids_pkey;
ALTER TABLE event_ids ADD PRIMARY KEY (project_id, event_name, event_id);
