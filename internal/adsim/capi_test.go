package adsim

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"mtk/internal/testenv"
)

// capiEvent is a valid event; mod changes it.
func capiEvent(id string, mod func(map[string]any)) map[string]any {
	e := map[string]any{
		"event_name":    "Purchase",
		"event_time":    testNow.Add(-time.Hour).Unix(),
		"event_id":      id,
		"action_source": "system_generated",
		"user_data":     map[string]any{"em": []string{testenv.SHA256("ana@example.com")}, "ph": testenv.SHA256("5511999990000"), "fbp": "fb.1.1700000000.123"},
		"custom_data":   map[string]any{"value": 129.9, "currency": "BRL"},
	}
	if mod != nil {
		mod(e)
	}
	return e
}

func TestCAPIValidation(t *testing.T) {
	s, _ := newSim(t, nil)
	srv := serve(t, s)
	acct := firstAccount(t, s, Alpha)
	endpoint := srv.URL + "/alpha/v19.0/" + acct.PixelID + "/events?access_token=" + acct.AccessToken
	many := make([]map[string]any, capiMaxEvents+1)
	for i := range many {
		many[i] = capiEvent(fmt.Sprint("bulk-", i), nil)
	}
	thousand := many[:capiMaxEvents]
	for _, tc := range []struct {
		name   string
		events []map[string]any
		status int
		sub    int
	}{
		{"ok", []map[string]any{capiEvent("e1", nil), capiEvent("e2", nil)}, 200, 0},
		{"1000 events", thousand, 200, 0},
		{"more than 1000", many, 400, capiSubcodeTooBig},
		{"no events", nil, 400, 0},
		{"missing event_name", []map[string]any{capiEvent("e3", func(e map[string]any) { delete(e, "event_name") })}, 400, capiSubcodeEvent},
		{"missing action_source", []map[string]any{capiEvent("e3", func(e map[string]any) { delete(e, "action_source") })}, 400, capiSubcodeEvent},
		{"missing event_id", []map[string]any{capiEvent("e3", func(e map[string]any) { delete(e, "event_id") })}, 400, capiSubcodeEvent},
		{"missing user_data", []map[string]any{capiEvent("e3", func(e map[string]any) { delete(e, "user_data") })}, 400, capiSubcodeEvent},
		{"no identifier", []map[string]any{capiEvent("e3", func(e map[string]any) { e["user_data"] = map[string]any{"em": ""} })}, 400, capiSubcodeEvent},
		{"unhashed email", []map[string]any{capiEvent("e3", func(e map[string]any) { e["user_data"] = map[string]any{"em": "ana@example.com"} })}, 400, capiSubcodeEvent},
		{"upper-case hash", []map[string]any{capiEvent("e3", func(e map[string]any) {
			e["user_data"] = map[string]any{"ph": strings.ToUpper(testenv.SHA256("1"))}
		})}, 400, capiSubcodeEvent},
		{"unhashed ip is fine", []map[string]any{capiEvent("e4", func(e map[string]any) { e["user_data"] = map[string]any{"client_ip_address": "203.0.113.9"} })}, 200, 0},
		{"too old", []map[string]any{capiEvent("e3", func(e map[string]any) { e["event_time"] = testNow.Add(-8 * 24 * time.Hour).Unix() })}, 400, capiSubcodeEvent},
		{"old store visit", []map[string]any{capiEvent("e5", func(e map[string]any) {
			e["event_time"], e["action_source"] = testNow.Add(-30*24*time.Hour).Unix(), "physical_store"
		})}, 200, 0},
		{"in the future", []map[string]any{capiEvent("e3", func(e map[string]any) { e["event_time"] = testNow.Add(time.Hour).Unix() })}, 400, capiSubcodeEvent},
		{"event_time as text", []map[string]any{capiEvent("e3", func(e map[string]any) { e["event_time"] = "yesterday" })}, 400, capiSubcodeEvent},
		{"unknown action_source", []map[string]any{capiEvent("e3", func(e map[string]any) { e["action_source"] = "fax" })}, 400, capiSubcodeEvent},
		{"website without user agent", []map[string]any{capiEvent("e3", func(e map[string]any) {
			e["action_source"], e["event_source_url"] = "website", "https://shop.example/checkout"
		})}, 400, capiSubcodeEvent},
		{"bad value", []map[string]any{capiEvent("e3", func(e map[string]any) { e["custom_data"] = map[string]any{"value": "lots"} })}, 400, capiSubcodeEvent},
		{"one bad event refuses all", []map[string]any{capiEvent("e6", nil), capiEvent("e7", func(e map[string]any) { delete(e, "event_id") })}, 400, capiSubcodeEvent},
	} {
		var out struct {
			EventsReceived int    `json:"events_received"`
			FbtraceID      string `json:"fbtrace_id"`
			Error          *struct {
				Code         int    `json:"code"`
				ErrorSubcode int    `json:"error_subcode"`
				Message      string `json:"message"`
			} `json:"error"`
		}
		resp := call(t, "POST", endpoint, nil, map[string]any{"data": tc.events}, &out)
		switch {
		case resp.StatusCode != tc.status:
			t.Errorf("%s: %d %+v", tc.name, resp.StatusCode, out.Error)
		case tc.status == 200 && (out.EventsReceived != len(tc.events) || out.FbtraceID == ""):
			t.Errorf("%s: %+v", tc.name, out)
		case tc.status != 200 && (out.Error == nil || out.Error.Code != 100 || out.Error.ErrorSubcode != tc.sub):
			t.Errorf("%s: %+v", tc.name, out.Error)
		}
	}
	log := s.CAPIEvents(acct.PixelID)
	if log.Received != 2+1000+2 || len(log.Events) != log.Received || log.Duplicates != 0 {
		t.Fatalf("received %d, kept %d, duplicates %d", log.Received, len(log.Events), log.Duplicates)
	}
	// Another pixel, or another account's token, is refused.
	if resp := call(t, "POST", srv.URL+"/alpha/v19.0/123/events?access_token="+acct.AccessToken, nil, map[string]any{"data": []any{capiEvent("x", nil)}}, nil); resp.StatusCode != 400 {
		t.Fatalf("unknown pixel: %d", resp.StatusCode)
	}
}

func TestCAPIDeduplication(t *testing.T) {
	s, fc := newSim(t, nil)
	srv := serve(t, s)
	acct := firstAccount(t, s, Alpha)
	send := func(events ...map[string]any) {
		// The form encoding of the Graph API: data is a JSON string.
		form := url.Values{"data": {toJSON(t, events)}, "access_token": {acct.AccessToken}}
		resp := call(t, "POST", srv.URL+"/alpha/v19.0/"+acct.PixelID+"/events", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, form.Encode(), nil)
		if resp.StatusCode != 200 {
			t.Fatalf("send: %d", resp.StatusCode)
		}
	}
	send(capiEvent("order-1", nil), capiEvent("order-2", nil))
	send(capiEvent("order-1", nil))                                                 // a duplicate
	send(capiEvent("order-1", func(e map[string]any) { e["event_name"] = "Lead" })) // another event name: not a duplicate
	fc.Advance(49 * time.Hour)
	send(capiEvent("order-2", func(e map[string]any) { e["event_time"] = s.Clock().Now().Unix() })) // outside the 48 h window
	log := s.CAPIEvents(acct.PixelID)
	if log.Received != 5 || log.Duplicates != 1 || len(log.Events) != 4 {
		t.Fatalf("received %d, duplicates %d, kept %d", log.Received, log.Duplicates, len(log.Events))
	}
	var viaAdmin CAPILog
	call(t, "GET", srv.URL+"/_admin/capi/events?pixel_id="+acct.PixelID, nil, nil, &viaAdmin)
	if viaAdmin.Duplicates != 1 || len(viaAdmin.Events) != 4 || viaAdmin.Events[0].EventID != "order-1" || viaAdmin.Events[0].EventName != "Purchase" {
		t.Fatalf("admin log %+v", viaAdmin)
	}
}
