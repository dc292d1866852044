-- Tracking configuration: containers (one per tracked site), their domains, linked pixels and
-- triggers; tracking links for chat messages and their clicks.
-- Ids: ctr_ (containers), trg_ (triggers), lnk_ (links); clicks are numbered (bigserial), so that
-- a click id fits in a chat marker and stays below 2^53 for JSON clients.

-- version '2.0' containers are legacy and addressed by domain; '3.0' ones by tracking_code
-- (<PREFIX>-<CODE>). status is recomputed from last_event_at and the verified domains by the
-- container status job; 'deleted' is terminal.
CREATE TABLE containers (
    id               text PRIMARY KEY,
    workspace_id     text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    project_id       text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    domain           text NOT NULL,
    alias            text NOT NULL,
    version          text NOT NULL CHECK (version IN ('2.0', '3.0')),
    tracking_code    text UNIQUE,
    status           text NOT NULL DEFAULT 'pending' CHECK (status IN
        ('valid_receive_events', 'pending_receive_events', 'not_receiving_events_p24h', 'pending', 'deleted')),
    allowed_hosts    text[] NOT NULL DEFAULT '{}',
    lead_key         text NOT NULL,
    has_funnel_steps boolean NOT NULL DEFAULT false,
    last_event_at    timestamptz,
    created_at       timestamptz NOT NULL,
    CHECK ((version = '3.0') = (tracking_code IS NOT NULL))
);
CREATE INDEX containers_project ON containers (project_id, created_at);
-- A domain has at most one live container of each version, so that a domain names one container.
CREATE UNIQUE INDEX containers_live_domain ON containers (version, domain) WHERE status <> 'deleted';

CREATE TABLE container_domains (
    container_id text NOT NULL REFERENCES containers (id) ON DELETE CASCADE,
    domain       text NOT NULL,
    status       text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'verified')),
    verified_at  timestamptz,
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (container_id, domain)
);

CREATE TABLE container_pixels (
    container_id text NOT NULL REFERENCES containers (id) ON DELETE CASCADE,
    source       text NOT NULL,
    pixel_id     text NOT NULL,
    name         text NOT NULL,
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (container_id, source, pixel_id)
);

CREATE TABLE triggers (
    id                 text PRIMARY KEY,
    container_id       text NOT NULL REFERENCES containers (id) ON DELETE CASCADE,
    name               text NOT NULL,
    trigger_type       text NOT NULL CHECK (trigger_type IN ('api', 'page_view', 'page_view_duration',
        'element_click', 'element_view', 'element_hover', 'form_submit', 'scroll_depth',
        'video_view_duration', 'whatsapp_keyword_message', 'click_tracking_link',
        'checkout_transaction_approved')),
    event_name         text NOT NULL,
    alpha_name         text NOT NULL,
    alpha_track_custom boolean NOT NULL DEFAULT false,
    created_at         timestamptz NOT NULL,
    updated_at         timestamptz NOT NULL
);
CREATE INDEX triggers_container ON triggers (container_id, created_at, id);

CREATE TABLE tracking_links (
    id           text PRIMARY KEY,
    workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    slug         text NOT NULL UNIQUE,
    name         text NOT NULL,
    phone        text NOT NULL CHECK (phone ~ '^[0-9]{8,15}$'),
    message      text NOT NULL,
    utm_source   text NOT NULL DEFAULT '',
    utm_medium   text NOT NULL DEFAULT '',
    utm_campaign text NOT NULL DEFAULT '',
    utm_content  text NOT NULL DEFAULT '',
    utm_term     text NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL
);
CREATE INDEX tracking_links_workspace ON tracking_links (workspace_id, created_at);

-- One row per visit of a link; its UTM is the one that click carried (see platform/links.go).
CREATE TABLE link_clicks (
    id           bigserial PRIMARY KEY,
    link_id      text NOT NULL REFERENCES tracking_links (id) ON DELETE CASCADE,
    utm_source   text NOT NULL DEFAULT '',
    utm_medium   text NOT NULL DEFAULT '',
    utm_campaign text NOT NULL DEFAULT '',
    utm_content  text NOT NULL DEFAULT '',
    utm_term     text NOT NULL DEFAULT '',
    ip           text NOT NULL,
    user_agent   text NOT NULL,
    clicked_at   timestamptz NOT NULL
);
CREATE INDEX link_clicks_link ON link_clicks (link_id, clicked_at);
