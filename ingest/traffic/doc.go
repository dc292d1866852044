// Package traffic derives where an event came from, as the business facts key it: the device
// class of its User-Agent (Device), the host of its page's referrer (ReferrerHost) and the path
// of its page (LandingPath), with its UTM the traffic dimensions of a visit (Dims), and whether its
// referrer is another site's (External: what makes a visit without UTM a marketing touch). Each is
// a pure function of what the event stored, so that the backfill of stored events gives exactly
// what ingestion gives.
package traffic
