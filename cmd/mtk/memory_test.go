package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// TestHostileBodiesKeepMemory: 32 concurrent ~700 KB events with 60,000 members of the wrong
// type each, public (before any credential is checked) and keyed, must not take a real `mtk
// serve` process's memory far past its own size plus the bodies in flight (CONTRACT "Hostile
// input, second pass": collecting problems stops after the 20th). Before the fix the problem
// list was built whole, after decoding had filled a map with the members: 36 MB → 1,175 MB
// here (41 MB → 917 MB in the security probe); after, 34 MB → 70 MB (2026-11-29, 2 cores).
// The figures are logged (go test -v); the bound is a generous regression guard, not a target.
func TestHostileBodiesKeepMemory(t *testing.T) {
	useTestStores(t)
	t.Setenv("MTK_RATE_LIMITS", "off")
	wsID := cliJSON(t, "workspace", "create", "--name", "Acme")["id"].(string)
	prjID := cliJSON(t, "project", "create", "--workspace", wsID, "--name", "Shop", "--currency", "USD", "--timezone", "UTC")["id"].(string)
	cliJSON(t, "container", "create", "--project", prjID, "--domain", "shop.example")
	token := cliJSON(t, "key", "create", "--workspace", wsID, "--name", "ingest", "--scopes", "tracking:write")["token"].(string)
	proc, base := serveProcess(t)

	const members, clients, rounds = 60000, 32, 3
	var b strings.Builder
	b.WriteString(`{"domain":"shop.example","config":{"name":"Lead"},"cookies":{`)
	for i := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"c%d":%d`, i, i)
	}
	b.WriteString("}}")
	body := b.String()
	before := vmHWM(t, proc.Process.Pid)

	for _, who := range []struct{ name, token string }{{"public", ""}, {"keyed", token}} {
		var wg sync.WaitGroup
		for range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range rounds {
					if err := wantShortProblems(base, who.token, body); err != nil {
						t.Errorf("%s: %v", who.name, err)
						return
					}
				}
			}()
		}
		wg.Wait()
	}
	peak := vmHWM(t, proc.Process.Pid)
	inFlight := int64(clients * len(body))
	t.Logf("mtk serve VmHWM: %d MB before, %d MB after %d×%d concurrent %d KB bodies of %d wrong-typed members (public, then keyed)",
		before>>20, peak>>20, clients, rounds, len(body)>>10, members)
	if limit := 4 * (before + inFlight); peak > limit {
		t.Fatalf("peak RSS %d MB, over 4×(%d MB at start + %d MB of bodies in flight)", peak>>20, before>>20, inFlight>>20)
	}
}

// wantShortProblems sends body as an event and checks its answer: 400 invalid_parameter with 20
// detail lines and one counting the rest, each at most 200 characters.
func wantShortProblems(base, token, body string) error {
	req, _ := http.NewRequest("POST", base+"/v3/tracking/events", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var answer struct {
		Error struct {
			Code    string   `json:"code"`
			Details []string `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &answer); err != nil || resp.StatusCode != 400 || answer.Error.Code != "invalid_parameter" {
		return fmt.Errorf("%d %.300s", resp.StatusCode, raw)
	}
	if d := answer.Error.Details; len(d) != 21 || d[20] != "... and 59980 more" {
		return fmt.Errorf("%d details, the last %q", len(d), d[len(d)-1])
	}
	for _, line := range answer.Error.Details {
		if utf8.RuneCountInString(line) > 200 {
			return fmt.Errorf("a detail line of %d characters", utf8.RuneCountInString(line))
		}
	}
	return nil
}

// vmHWM is a process's peak resident set size, in bytes (/proc/<pid>/status).
func vmHWM(t *testing.T, pid int) int64 {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for line := range bytes.Lines(status) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(string(rest)), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/<pid>/status")
	return 0
}
