-- A click's lead: the person whose event first carried the click's id (ingest/events, the event's
-- click_id), set once; the click then becomes one of that lead's journey touches. Indexed for the
-- journey backfill and for the lead's deletion (with its project), which reopens the click.
ALTER TABLE link_clicks ADD COLUMN lead_id text REFERENCES leads (id) ON DELETE SET NULL;
CREATE INDEX link_clicks_lead ON link_clicks (lead_id) WHERE lead_id IS NOT NULL;
