package main

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// flagLine is a flag in the flag package's listing: "  -name string".
var flagLine = regexp.MustCompile(`(?m)^  -([a-z-]+)`)

// TestEveryCommandHelpPrintsItsFlags: --help (and -h) after any subcommand prints its usage line
// and the flags it takes (exactly those), on stdout, with exit 0; after a command that has
// subcommands, their usage lines. The table covers every command.
func TestEveryCommandHelpPrintsItsFlags(t *testing.T) {
	cases := []struct {
		args  []string
		flags []string
	}{
		{[]string{"serve"}, []string{"role"}},
		{[]string{"migrate"}, []string{"cluster"}},
		{[]string{"seed", "demo"}, []string{"json", "env"}},
		{[]string{"workspace", "create"}, []string{"name", "tier", "json"}},
		{[]string{"user", "create"}, []string{"email", "password", "name", "workspace", "role", "json"}},
		{[]string{"user", "password"}, []string{"email", "password", "json"}},
		{[]string{"key", "create"}, []string{"workspace", "name", "scopes", "expires", "json"}},
		{[]string{"key", "list"}, []string{"workspace", "json"}},
		{[]string{"key", "revoke"}, []string{"json"}},
		{[]string{"oauth-client", "create"}, []string{"name", "redirect-uri", "scopes", "public", "json"}},
		{[]string{"oauth-client", "list"}, []string{"json"}},
		{[]string{"oauth-client", "revoke"}, []string{"json"}},
		{[]string{"project", "create"}, []string{"workspace", "name", "currency", "timezone", "description", "logo", "json"}},
		{[]string{"connection", "create"}, []string{"project", "kind", "name", "source-id", "api-base-url", "access-token", "json"}},
		{[]string{"container", "create"}, []string{"project", "domain", "version", "alias", "allowed-hosts", "json"}},
		{[]string{"container", "verify"}, []string{"domain"}},
		{[]string{"container", "delete"}, nil},
		{[]string{"sync", "now"}, []string{"connection", "all"}},
		{[]string{"sync", "backfill"}, []string{"connection", "days"}},
		{[]string{"outbox", "list"}, []string{"status", "limit", "json"}},
		{[]string{"outbox", "retry"}, nil},
		{[]string{"outbox", "stats"}, []string{"json"}},
		{[]string{"backfill", "business"}, []string{"batch", "json"}},
		{[]string{"backfill", "journeys"}, []string{"redo"}},
		{[]string{"bench"}, []string{"url", "key", "body", "queries", "concurrency", "rate", "max-inflight", "duration", "warmup", "cache", "json", "compare"}},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.args[0]] = true
		for _, help := range []string{"--help", "-h"} {
			name := "mtk " + strings.Join(c.args, " ")
			out, errOut, code := cli(t, append(slices.Clone(c.args), help)...)
			if code != 0 || errOut != "" || !strings.Contains(out, "Usage: "+name) {
				t.Errorf("%s %s: exit %d, stderr %q, stdout:\n%s\nwant exit 0 and the usage of %s", name, help, code, errOut, out, name)
			}
			var listed []string
			for _, m := range flagLine.FindAllStringSubmatch(out, -1) {
				listed = append(listed, m[1])
			}
			if want := slices.Sorted(slices.Values(c.flags)); !slices.Equal(listed, want) {
				t.Errorf("%s %s lists flags %v, want %v:\n%s", name, help, listed, want, out)
			}
			if len(c.flags) == 0 && !strings.Contains(out, "No flags.") {
				t.Errorf("%s %s says nothing of flags:\n%s", name, help, out)
			}
		}
	}
	for _, cmd := range slices.Sorted(maps.Keys(commands)) {
		if !covered[cmd] {
			t.Errorf("mtk %s is not in the table", cmd)
		}
	}
	out, _, code := cli(t, "key", "--help")
	if code != 0 || !strings.Contains(out, "Usage: mtk key create") || !strings.Contains(out, "Usage: mtk key revoke") {
		t.Errorf("mtk key --help: exit %d\n%s", code, out)
	}
}
