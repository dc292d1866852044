-- Ingestion (owned by ingest/): leads, orders, and the two transactional outboxes that carry
-- their consequences out of PostgreSQL: signed facts for ClickHouse (fact_outbox) and conversions
-- for the first network (conversion_outbox). Both are written in the same transaction as the
-- change that causes them.

-- A checkout connection's tracking flag: an approved purchase produces a Purchase conversion
-- toward the project's pixels only when it is on.
ALTER TABLE connections ADD COLUMN tracking_enabled boolean NOT NULL DEFAULT true;

-- A lead is one person of a project, identified by e-mail (trimmed, lower case), phone (digits)
-- or document (digits). Each identifier names at most one lead row. When an event proves that
-- two leads are one person, the younger is merged into the older: merged_into points at the
-- survivor (always a root), the merged row keeps its identifiers so that they still find the
-- person. utm_* is the lead's latest non-empty UTM.
CREATE TABLE leads (
    id           text PRIMARY KEY,
    project_id   text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    merged_into  text REFERENCES leads (id),
    email        text,
    phone        text,
    document     text,
    name         text NOT NULL DEFAULT '',
    first_name   text NOT NULL DEFAULT '',
    last_name    text NOT NULL DEFAULT '',
    external_id  text NOT NULL DEFAULT '',
    city         text NOT NULL DEFAULT '',
    state        text NOT NULL DEFAULT '',
    zip          text NOT NULL DEFAULT '',
    country      text NOT NULL DEFAULT '',
    utm_source   text NOT NULL DEFAULT '',
    utm_medium   text NOT NULL DEFAULT '',
    utm_campaign text NOT NULL DEFAULT '',
    utm_content  text NOT NULL DEFAULT '',
    utm_term     text NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL
);
CREATE UNIQUE INDEX leads_email ON leads (project_id, email) WHERE email IS NOT NULL;
CREATE UNIQUE INDEX leads_phone ON leads (project_id, phone) WHERE phone IS NOT NULL;
CREATE UNIQUE INDEX leads_document ON leads (project_id, document) WHERE document IS NOT NULL;
CREATE INDEX leads_merged_into ON leads (merged_into) WHERE merged_into IS NOT NULL;

-- One row per transaction of a connection: its latest state (last writer wins by updated_at).
-- The attributed entity and fact time of the stored state are kept so that its contribution to
-- the facts can be negated exactly when the state changes.
CREATE TABLE orders (
    connection_id       text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
    transaction_id      text NOT NULL,
    project_id          text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    status              text NOT NULL CHECK (status IN ('pending', 'approved', 'failed', 'refunded', 'chargeback')),
    value               bigint NOT NULL,
    currency            text NOT NULL,
    commission_value    bigint,
    commission_currency text,
    product_cost        bigint NOT NULL,
    customer            jsonb NOT NULL,
    items               jsonb NOT NULL,
    utm_source          text NOT NULL DEFAULT '',
    utm_medium          text NOT NULL DEFAULT '',
    utm_campaign        text NOT NULL DEFAULT '',
    utm_content         text NOT NULL DEFAULT '',
    utm_term            text NOT NULL DEFAULT '',
    src                 text NOT NULL DEFAULT '',
    sck                 text NOT NULL DEFAULT '',
    lead_id             text REFERENCES leads (id),
    attr_source         text NOT NULL DEFAULT '',
    attr_connection_id  text NOT NULL DEFAULT '',
    attr_account_id     text NOT NULL DEFAULT '',
    attr_campaign_id    text NOT NULL DEFAULT '',
    attr_adset_id       text NOT NULL DEFAULT '',
    attr_ad_id          text NOT NULL DEFAULT '',
    purchase_queued     boolean NOT NULL DEFAULT false,
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL,
    received_at         timestamptz NOT NULL,
    PRIMARY KEY (connection_id, transaction_id)
);
CREATE INDEX orders_project ON orders (project_id, created_at);

-- Signed fact rows waiting for ClickHouse: the business facts of attributed events, and orders'
-- contributions and their negations. Money is in micros, as in facts_raw. attempted_at is set (and committed) before a row is
-- first sent; a row that has it but no applied_at may already be in facts_raw (a crash between
-- the insert and the mark), so the drainer looks for it there (by outbox_id) before inserting.
CREATE TABLE fact_outbox (
    id                bigserial PRIMARY KEY,
    project_id        text NOT NULL,
    timezone          text NOT NULL,
    ts                timestamptz NOT NULL,
    source            text NOT NULL,
    connection_id     text NOT NULL,
    account_id        text NOT NULL,
    campaign_id       text NOT NULL,
    adset_id          text NOT NULL,
    ad_id             text NOT NULL,
    currency          text NOT NULL,
    page_views        bigint NOT NULL DEFAULT 0,
    leads             bigint NOT NULL DEFAULT 0,
    initiate_checkout bigint NOT NULL DEFAULT 0,
    tx_revenue        bigint NOT NULL DEFAULT 0,
    tx_count          bigint NOT NULL DEFAULT 0,
    tx_count_total    bigint NOT NULL DEFAULT 0,
    tx_count_pending  bigint NOT NULL DEFAULT 0,
    tx_count_refunded bigint NOT NULL DEFAULT 0,
    tx_product_costs  bigint NOT NULL DEFAULT 0,
    created_at        timestamptz NOT NULL,
    attempted_at      timestamptz,
    applied_at        timestamptz
);
CREATE INDEX fact_outbox_pending ON fact_outbox (id) WHERE applied_at IS NULL;

-- Conversions waiting for the first network's conversions API, one per (pixel, event name, event
-- id): a repeated event id is queued once. payload is the server event (user data already
-- normalized and hashed). status: pending, sent, dead (a permanent failure, or too many attempts).
CREATE TABLE conversion_outbox (
    id              bigserial PRIMARY KEY,
    project_id      text NOT NULL,
    pixel_id        text NOT NULL,
    event_name      text NOT NULL,
    event_id        text NOT NULL,
    event_time      timestamptz NOT NULL,
    payload         json NOT NULL,
    status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'dead')),
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL,
    last_error      text NOT NULL DEFAULT '',
    created_at      timestamptz NOT NULL,
    sent_at         timestamptz,
    UNIQUE (pixel_id, event_name, event_id)
);
CREATE INDEX conversion_outbox_due ON conversion_outbox (next_attempt_at, id) WHERE status = 'pending';
