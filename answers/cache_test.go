package answers

import (
	"fmt"
	"strings"
	"testing"
)

func TestCacheKeepsAnswersUntilItsBoundThenDropsTheLeastRecentlyUsed(t *testing.T) {
	body := []byte(strings.Repeat("x", 1000))
	per := cost("k00", body)
	c := NewCache(3 * per)
	for i := range 3 {
		c.Put(fmt.Sprintf("k%02d", i), body)
	}
	if _, ok := c.Get("k00"); !ok { // k00 is now the most recently used
		t.Fatal("k00 missing within the bound")
	}
	c.Put("k03", body)
	if _, ok := c.Get("k01"); ok {
		t.Fatal("k01, the least recently used, was kept past the bound")
	}
	for _, k := range []string{"k00", "k02", "k03"} {
		if got, ok := c.Get(k); !ok || string(got) != string(body) {
			t.Fatalf("%s: %v", k, ok)
		}
	}
	s := c.Stats()
	if s.Bytes != 3*per || s.Entries != 3 || s.Evictions != 1 || s.Hits != 4 || s.Misses != 1 {
		t.Fatalf("stats %+v", s)
	}
}

func TestCacheBoundHoldsUnderManyAnswers(t *testing.T) {
	c := NewCache(64 << 10)
	for i := range 10_000 {
		c.Put(fmt.Sprint(i), make([]byte, i%3000))
		if s := c.Stats(); s.Bytes > 64<<10 {
			t.Fatalf("after %d answers the cache holds %d bytes, over its 65,536", i+1, s.Bytes)
		}
	}
	c.Put("huge", make([]byte, 65<<10))
	if _, ok := c.Get("huge"); ok {
		t.Fatal("an answer larger than the bound was kept")
	}
}

func TestCachePutReplacesAnAnswer(t *testing.T) {
	c := NewCache(1 << 20)
	c.Put("k", []byte("old answer"))
	c.Put("k", []byte("new"))
	if got, _ := c.Get("k"); string(got) != "new" {
		t.Fatalf("got %q", got)
	}
	if s := c.Stats(); s.Entries != 1 || s.Bytes != cost("k", []byte("new")) {
		t.Fatalf("stats %+v", s)
	}
}
