-- Ingestion (owned by ingest/).
--
-- events: every tracking event as received, attributed or not, so that nothing is lost. The
-- business facts of attributed events go to facts_raw as well.
CREATE TABLE IF NOT EXISTS events (
    project_id    String,
    container_id  String,
    event_id      String,
    ts            DateTime,
    received_at   DateTime,
    name          String,
    alpha_name    String,
    source        String,
    lead_id       String,
    new_lead      UInt8,
    utm_source    String,
    utm_medium    String,
    utm_campaign  String,
    utm_content   String,
    utm_term      String,
    campaign_id   String,
    adset_id      String,
    ad_id         String,
    page_url      String,
    referrer      String,
    value         Int64,
    currency      String,
    client_ip     String,
    user_agent    String,
    body          String
) ENGINE = MergeTree
PARTITION BY toYYYYMM(ts)
ORDER BY (project_id, ts, event_id);

-- The fact outbox row a fact came from (0 for facts that did not come through it): the drainer
-- looks rows up by it after a crash, so that a retried batch never counts twice.
ALTER TABLE facts_raw ADD COLUMN outbox_id UInt64 DEFAULT 0;
