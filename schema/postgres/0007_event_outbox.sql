-- Tracking events waiting for ClickHouse (owned by ingest/). An event is acknowledged once its
-- batch commits here, in the transaction that also writes its lead, its business facts
-- (fact_outbox) and its conversions (conversion_outbox): one group commit per batch, so an event
-- and its consequences are stored together or not at all. The event drainer then moves rows to
-- ClickHouse's events table in id order, each row carrying its id (events.outbox_id), and
-- deletes them. attempted_at is set (and committed) before a row is first sent; a row that has
-- it may already be in ClickHouse (a crash between the insert and the delete), so the drainer
-- looks for it there by outbox_id before inserting.
CREATE TABLE event_outbox (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    project_id   text NOT NULL,
    container_id text NOT NULL,
    event_id     text NOT NULL,
    ts           timestamptz NOT NULL,
    received_at  timestamptz NOT NULL,
    name         text NOT NULL,
    alpha_name   text NOT NULL,
    source       text NOT NULL,
    lead_id      text NOT NULL,
    new_lead     boolean NOT NULL,
    utm_source   text NOT NULL,
    utm_medium   text NOT NULL,
    utm_campaign text NOT NULL,
    utm_content  text NOT NULL,
    utm_term     text NOT NULL,
    campaign_id  text NOT NULL,
    adset_id     text NOT NULL,
    ad_id        text NOT NULL,
    page_url     text NOT NULL,
    referrer     text NOT NULL,
    value        bigint NOT NULL,
    currency     text NOT NULL,
    client_ip    text NOT NULL,
    user_agent   text NOT NULL,
    body         text NOT NULL,
    attempted_at timestamptz
);
