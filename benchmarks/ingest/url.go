package main

import "net/url"

// withDatabase returns a store URL with its path (the database name) replaced.
func withDatabase(raw, name string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.Path = "/" + name
	return u.String()
}

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
