package main

import "net/url"

// hostOf is a store URL's host:port.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}

// withHost returns a store URL with its host:port replaced.
func withHost(raw, host string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.Host = host
	return u.String()
}
