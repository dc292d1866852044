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
