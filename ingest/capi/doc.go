// Package capi builds the payload of the first network's server-side conversions API, which is
// modelled exactly on Meta's Conversions API: POST https://graph.facebook.com/<version>/<pixel
// id>/events with the access token as a query or form parameter (not part of Body), and a JSON
// body {"data":[events], "test_event_code"?}. This package does no I/O.
//
// # Customer information (user_data)
//
// Each hashed parameter is sent as a list holding one SHA-256 digest, lowercase hex, of the
// normalized UTF-8 value (bytes that are not UTF-8 are dropped first). A value that is already a
// SHA-256 digest (64 hex digits, any case) is passed through in lowercase, not hashed again. A
// value that normalizes to nothing is omitted.
//
//   - em: trimmed, lowercase. Dropped unless it has text on both sides of a single '@' and no
//     space.
//   - ph: the optional-trunk notation "(0)" removed ("+44 (0)20 7946 0958" gives
//     442079460958), digits only, then leading zeros removed (an international "00" prefix or a national
//     trunk "0"). No country code is added: Meta matches only numbers with their country code,
//     so callers should store phones in international form (+55 11 98888-7777 gives
//     5511988887777); a national number is hashed as it is and will seldom match.
//   - fn, ln: lowercase; letters and combining marks kept, in any script (UTF-8, "valéry",
//     "정"); punctuation, symbols and digits removed; words separated by one space. When first
//     or last name is empty, Lead.Name is split on spaces: its first word is fn, its last word
//     (if it has two or more) is ln.
//   - ct: lowercase, letters and combining marks only: no spaces, punctuation or digits.
//   - st: as ct; then, when the country is "us" or unknown, a US state's or territory's name is
//     replaced by its two-letter ANSI code ("California" gives "ca"). Other countries' states
//     are sent as ct is.
//   - zp: lowercase, letters and digits only (no spaces, no dashes). US codes keep their first 5
//     digits: when the country is "us", or when it is unknown and the value is written as a
//     ZIP+4 ("94025-1234"). UK codes (country "gb") keep area, district and sector ("SW1A 1AA"
//     gives "sw1a1"). Others are kept whole (a Brazilian CEP "01310-100" gives "01310100").
//   - country: lowercase letters; must then be an ISO 3166-1 alpha-2 code in use ("uk" is read
//     as "gb"). Names ("Brazil") are not translated and are omitted.
//   - external_id: trimmed, case kept, hashed.
//
// Sent as they are (not hashed): client_ip_address (only when it parses as an IPv4 or IPv6
// address; an IPv4-mapped IPv6 address is sent as IPv4), client_user_agent (trimmed), fbp (the
// `_fbp` cookie) and fbc (the `_fbc` cookie; without it, when the page URL has an fbclid query
// parameter, "fb.1.<event time in ms>.<fbclid>" with the fbclid unchanged, as Meta describes).
//
// # Event
//
// event_time is Unix seconds; event_id is the deduplication key shared with the browser pixel
// (an order's Purchase uses the transaction id); event_source_url is the page URL. custom_data
// holds value and item_price in major units, formatted from integer cents (1999 gives the JSON
// number 19.99; mtk's cents are hundredths of the major unit for every currency), currency as
// a lowercase ISO 4217 code, order_id, and for items contents [{id, quantity, item_price}],
// content_ids and content_type "product". custom_data is omitted when it would be empty.
//
// NewEvent refuses, with an error wrapping ErrInvalidEvent, what Meta would reject: no
// event_name; no event_time; an action_source outside Meta's list; a website event without
// event_source_url or client_user_agent; user_data without any parameter; a value without a
// currency; a currency that is not three letters; an item without id or with a quantity below
// 1; a Purchase without value and currency. Meta also rejects an event_time more than 7 days
// old or in the future: the sender checks that against its clock when it sends.
//
// # Requests
//
// Body encodes one request of at most MaxBatch (1000) events; the sender (ingest/conversions) groups
// the due conversions into such requests.
package capi
