// Package traffic derives where an event came from, as the business facts key it: the device
// class of its User-Agent (Device), the host of its page's referrer (ReferrerHost) and the path
// of its page (LandingPath). Each is a pure function of what the event stored, so that the
// backfill of stored events gives exactly what ingestion gives.
package traffic
