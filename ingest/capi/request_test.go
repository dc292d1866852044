package capi

import (
	"strconv"
	"testing"
)

func events(n int) []Event {
	es := make([]Event, n)
	for i := range es {
		es[i].EventID = strconv.Itoa(i)
	}
	return es
}

func TestBatches(t *testing.T) {
	tests := []struct {
		n, max int
		sizes  []int
	}{
		{0, 1000, nil},
		{1, 1000, []int{1}},
		{1000, 1000, []int{1000}},
		{1001, 1000, []int{1000, 1}},
		{2500, 0, []int{1000, 1000, 500}},
		{2500, 5000, []int{1000, 1000, 500}},
		{7, 3, []int{3, 3, 1}},
	}
	for _, tt := range tests {
		in := events(tt.n)
		got := Batches(in, tt.max)
		if len(got) != len(tt.sizes) {
			t.Fatalf("Batches(%d, %d): %d batches, want %d", tt.n, tt.max, len(got), len(tt.sizes))
		}
		next := 0
		for i, b := range got {
			if len(b) != tt.sizes[i] || cap(b) != len(b) {
				t.Errorf("Batches(%d, %d)[%d]: len %d cap %d, want %d", tt.n, tt.max, i, len(b), cap(b), tt.sizes[i])
			}
			for _, e := range b {
				if e.EventID != strconv.Itoa(next) {
					t.Fatalf("Batches(%d, %d): event %s out of order, want %d", tt.n, tt.max, e.EventID, next)
				}
				next++
			}
		}
	}
}

func TestBody(t *testing.T) {
	e := Event{EventName: "Lead", EventTime: 1718000000, ActionSource: Chat, UserData: UserData{Fbp: "fb.1.2.3"}}
	tests := []struct {
		name string
		code string
		want string
	}{
		{"live", "", `{"data":[{"event_name":"Lead","event_time":1718000000,"action_source":"chat","user_data":{"fbp":"fb.1.2.3"}}]}`},
		{"test", "TEST123", `{"data":[{"event_name":"Lead","event_time":1718000000,"action_source":"chat","user_data":{"fbp":"fb.1.2.3"}}],"test_event_code":"TEST123"}`},
	}
	for _, tt := range tests {
		got, err := Body([]Event{e}, tt.code)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("%s: Body = %s, want %s", tt.name, got, tt.want)
		}
	}
	for _, n := range []int{0, MaxBatch + 1} {
		if _, err := Body(events(n), ""); err == nil {
			t.Errorf("Body of %d events accepted", n)
		}
	}
	if _, err := Body(events(MaxBatch), ""); err != nil {
		t.Errorf("Body of %d events refused: %v", MaxBatch, err)
	}
}
