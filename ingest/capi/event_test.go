package capi

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"mtk/internal/testenv"
)

var at = time.Unix(1718000000, 0)

func ptr(v int64) *int64 { return &v }

func TestNewEventWebsiteLead(t *testing.T) {
	e, err := NewEvent(Input{
		EventName:    "Lead",
		EventTime:    at,
		EventID:      " evt_1 ",
		ActionSource: Website,
		PageURL:      "https://shop.example/lp?utm_source=fb&fbclid=IwAR2F4-dbP0l7Mn1",
		Lead: Lead{
			Email: " John_Smith@gmail.com ", Phone: "+1 (650) 555-1212", Name: "Mary Ann Smith",
			City: "Menlo Park", State: "California", Zip: "94025-1234", Country: "US", ExternalID: "lead_1",
		},
		Cookies:   map[string]string{"_fbp": "fb.1.1596403881668.1116446470", "other": "x"},
		ClientIP:  "::ffff:203.0.113.9",
		UserAgent: "Mozilla/5.0",
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`{"event_name":"Lead","event_time":1718000000,"event_id":"evt_1","action_source":"website",`+
		`"event_source_url":"https://shop.example/lp?utm_source=fb\u0026fbclid=IwAR2F4-dbP0l7Mn1",`+
		`"user_data":{"em":[%q],"ph":[%q],"fn":[%q],"ln":[%q],"ct":[%q],"st":[%q],"zp":[%q],"country":[%q],"external_id":[%q],`+
		`"client_ip_address":"203.0.113.9","client_user_agent":"Mozilla/5.0",`+
		`"fbc":"fb.1.1718000000000.IwAR2F4-dbP0l7Mn1","fbp":"fb.1.1596403881668.1116446470"}}`,
		testenv.SHA256("john_smith@gmail.com"), testenv.SHA256("16505551212"), testenv.SHA256("mary"), testenv.SHA256("smith"), testenv.SHA256("menlopark"),
		testenv.SHA256("ca"), testenv.SHA256("94025"), testenv.SHA256("us"), testenv.SHA256("lead_1"))
	if string(got) != want {
		t.Errorf("JSON\n got %s\nwant %s", got, want)
	}
}

func TestNewEventPurchase(t *testing.T) {
	e, err := NewEvent(Input{
		EventName:    "Purchase",
		EventTime:    at,
		EventID:      "tx_1",
		ActionSource: SystemGenerated,
		Lead:         Lead{Phone: "+55 11 98888-7777", FirstName: "José", Name: "Ignored Silva"},
		Cookies:      map[string]string{"_fbc": "fb.1.1554763741205.AbCdEf", "_fbp": ""},
		PageURL:      "https://shop.example/?fbclid=ignored-when-the-cookie-is-there",
		ValueCents:   ptr(1999),
		Currency:     "BRL",
		OrderID:      "tx_1",
		Items: []Item{
			{ID: "sku1", Quantity: 2, UnitPriceCents: ptr(500)},
			{ID: "sku2", Quantity: 1},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`{"event_name":"Purchase","event_time":1718000000,"event_id":"tx_1","action_source":"system_generated",`+
		`"event_source_url":"https://shop.example/?fbclid=ignored-when-the-cookie-is-there",`+
		`"user_data":{"ph":[%q],"fn":[%q],"ln":[%q],"fbc":"fb.1.1554763741205.AbCdEf"},`+
		`"custom_data":{"value":19.99,"currency":"brl","order_id":"tx_1","content_ids":["sku1","sku2"],"content_type":"product",`+
		`"contents":[{"id":"sku1","quantity":2,"item_price":5.00},{"id":"sku2","quantity":1}]}}`,
		testenv.SHA256("5511988887777"), testenv.SHA256("josé"), testenv.SHA256("silva"))
	if string(got) != want {
		t.Errorf("JSON\n got %s\nwant %s", got, want)
	}
}

func TestNewEventBrowserValues(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		want UserData
	}{
		{"bad ip dropped", Input{ClientIP: "300.1.1.1", UserAgent: " UA "}, UserData{ClientUserAgent: "UA"}},
		{"ipv6 kept", Input{ClientIP: " 2001:db8::1 "}, UserData{ClientIPAddress: "2001:db8::1"}},
		{"no fbclid, no fbc", Input{PageURL: "https://x.example/?a=1", ClientIP: "203.0.113.9"}, UserData{ClientIPAddress: "203.0.113.9"}},
		{"unparsable page url", Input{PageURL: "http://[::1", ClientIP: "203.0.113.9"}, UserData{ClientIPAddress: "203.0.113.9"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.EventName, tt.in.EventTime, tt.in.ActionSource = "Lead", at, Other
			e, err := NewEvent(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			g, _ := json.Marshal(e.UserData)
			w, _ := json.Marshal(tt.want)
			if string(g) != string(w) {
				t.Errorf("user_data %s, want %s", g, w)
			}
		})
	}
}

func TestNewEventRefuses(t *testing.T) {
	valid := Input{EventName: "Lead", EventTime: at, ActionSource: Chat, Lead: Lead{Email: "a@b.co"}}
	tests := []struct {
		name   string
		change func(*Input)
		want   string
	}{
		{"no name", func(in *Input) { in.EventName = " " }, "event_name is empty"},
		{"no time", func(in *Input) { in.EventTime = time.Time{} }, "event_time is missing"},
		{"unknown action source", func(in *Input) { in.ActionSource = "Website" }, `action_source "Website"`},
		{"empty action source", func(in *Input) { in.ActionSource = "" }, `action_source ""`},
		{"website without url", func(in *Input) { in.ActionSource, in.UserAgent = Website, "UA" }, "event_source_url and client_user_agent"},
		{"website without user agent", func(in *Input) { in.ActionSource, in.PageURL = Website, "https://x.example/" }, "event_source_url and client_user_agent"},
		{"no customer information", func(in *Input) { in.Lead = Lead{Email: "not an email", Country: "Brazil"} }, "user_data holds no customer information"},
		{"value without currency", func(in *Input) { in.ValueCents = ptr(100) }, "value needs a currency"},
		{"bad currency", func(in *Input) { in.ValueCents, in.Currency = ptr(100), "R$" }, `currency "R$"`},
		{"item without id", func(in *Input) { in.Items = []Item{{ID: "a", Quantity: 1}, {ID: " ", Quantity: 1}} }, "items[1] needs"},
		{"item without quantity", func(in *Input) { in.Items = []Item{{ID: "a"}} }, "items[0] needs"},
		{"purchase without value", func(in *Input) { in.EventName, in.Currency = "Purchase", "usd" }, "a Purchase needs value and currency"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := valid
			tt.change(&in)
			_, err := NewEvent(in)
			if !errors.Is(err, ErrInvalidEvent) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("NewEvent error = %v, want one containing %q", err, tt.want)
			}
		})
	}
	if _, err := NewEvent(valid); err != nil {
		t.Fatalf("valid input refused: %v", err)
	}
}

func TestParseActionSource(t *testing.T) {
	for _, s := range []string{"website", " Chat ", "PHONE_CALL", "system_generated", "app", "email", "physical_store", "other"} {
		if _, ok := ParseActionSource(s); !ok {
			t.Errorf("ParseActionSource(%q) refused", s)
		}
	}
	if a, _ := ParseActionSource(" Chat "); a != Chat {
		t.Errorf("ParseActionSource(Chat) = %q", a)
	}
	for _, s := range []string{"", "web", "whatsapp"} {
		if _, ok := ParseActionSource(s); ok {
			t.Errorf("ParseActionSource(%q) accepted", s)
		}
	}
}
