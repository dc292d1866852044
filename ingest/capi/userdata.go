package capi

import (
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Lead is who did the event, as mtk knows them: an event's `lead` member or an order's customer.
// Values are raw; NewEvent normalizes and hashes them.
type Lead struct {
	Email      string
	Phone      string
	Name       string // full name, used for first/last name when those are empty
	FirstName  string
	LastName   string
	City       string
	State      string
	Zip        string
	Country    string
	ExternalID string
}

// UserData is Meta's user_data. Hashed parameters are lists of SHA-256 lowercase hex digests;
// the browser parameters are sent as they are.
type UserData struct {
	Email           []string `json:"em,omitempty"`
	Phone           []string `json:"ph,omitempty"`
	FirstName       []string `json:"fn,omitempty"`
	LastName        []string `json:"ln,omitempty"`
	City            []string `json:"ct,omitempty"`
	State           []string `json:"st,omitempty"`
	Zip             []string `json:"zp,omitempty"`
	Country         []string `json:"country,omitempty"`
	ExternalID      []string `json:"external_id,omitempty"`
	ClientIPAddress string   `json:"client_ip_address,omitempty"`
	ClientUserAgent string   `json:"client_user_agent,omitempty"`
	Fbc             string   `json:"fbc,omitempty"`
	Fbp             string   `json:"fbp,omitempty"`
}

// isZero reports whether u holds no parameter at all.
func (u UserData) isZero() bool {
	return len(u.Email)+len(u.Phone)+len(u.FirstName)+len(u.LastName)+len(u.City)+len(u.State)+
		len(u.Zip)+len(u.Country)+len(u.ExternalID) == 0 &&
		u.ClientIPAddress == "" && u.ClientUserAgent == "" && u.Fbc == "" && u.Fbp == ""
}

func newUserData(in Input) UserData {
	l := in.Lead
	first, last := l.FirstName, l.LastName
	if words := strings.Fields(l.Name); len(words) > 0 {
		if strings.TrimSpace(first) == "" {
			first = words[0]
		}
		if strings.TrimSpace(last) == "" && len(words) > 1 {
			last = words[len(words)-1]
		}
	}
	country := normCountry(l.Country)
	u := UserData{
		Email:           hashed(l.Email, normEmail),
		Phone:           hashed(l.Phone, normPhone),
		FirstName:       hashed(first, normName),
		LastName:        hashed(last, normName),
		City:            hashed(l.City, normCity),
		State:           hashed(l.State, func(v string) string { return normState(v, country) }),
		Zip:             hashed(l.Zip, func(v string) string { return normZip(v, country) }),
		Country:         hashed(l.Country, normCountry),
		ExternalID:      hashed(l.ExternalID, normExternalID),
		ClientUserAgent: strings.TrimSpace(in.UserAgent),
		Fbp:             strings.TrimSpace(in.Cookies["_fbp"]),
		Fbc:             fbc(in.Cookies["_fbc"], in.PageURL, in.EventTime),
	}
	if ip, err := netip.ParseAddr(strings.TrimSpace(in.ClientIP)); err == nil {
		u.ClientIPAddress = ip.Unmap().String()
	}
	return u
}

// fbc is the _fbc cookie, or else fb.1.<event time, ms>.<fbclid> built from the page URL's
// fbclid, which is kept exactly as it is (it is case-sensitive).
func fbc(cookie, pageURL string, at time.Time) string {
	if c := strings.TrimSpace(cookie); c != "" {
		return c
	}
	u, err := url.Parse(strings.TrimSpace(pageURL))
	if err != nil {
		return ""
	}
	clickID := u.Query().Get("fbclid")
	if clickID == "" {
		return ""
	}
	return "fb.1." + strconv.FormatInt(at.UnixMilli(), 10) + "." + clickID
}
