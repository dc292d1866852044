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
