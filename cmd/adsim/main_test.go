package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestRunServesAndStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-listen", "127.0.0.1:0", "-seed", "7", "-days", "10", "-fake-clock",
			"-fake-start", "2024-05-01T12:00:00Z"}, pw)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	if !sc.Scan() {
		t.Fatalf("no output: %v", <-done)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	fields := strings.Fields(sc.Text())
	base := fields[3]
	resp, err := http.Get(base + "/_admin/accounts")
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Accounts []struct{ Network, AccessToken string } `json:"accounts"`
	}
	err = json.NewDecoder(resp.Body).Decode(&out)
	resp.Body.Close()
	if err != nil || len(out.Accounts) != 6 {
		t.Fatalf("accounts: %v %+v", err, out)
	}
	resp, err = http.Post(base+"/_admin/clock", "application/json", strings.NewReader(`{"advance":"1h"}`))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("advance the fake clock: %v %v", err, resp.Status)
	}
	resp.Body.Close()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestRunRefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-listen", "0.0.0.0:18900"},
		{"-listen", "nope"},
		{"-days", "0"},
		{"-fake-clock", "-fake-start", "yesterday"},
	} {
		if err := run(context.Background(), args, io.Discard); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}
