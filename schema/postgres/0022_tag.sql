-- The tag (platform/triggerrule.go, tag/): each trigger's rule beyond its type (conditions,
-- selector, seconds, percent, keyword, fire) as the JSON of config.trigger without its type,
-- which stays in trigger_type; and whether a container's script waits for the visitor's consent.
ALTER TABLE triggers ADD COLUMN rule jsonb NOT NULL DEFAULT '{}';
ALTER TABLE containers ADD COLUMN require_consent boolean NOT NULL DEFAULT false;
