package platform

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The trigger types of the contract ("The tag"), by where they fire: the client-side ones in the
// browser, through the container's script; the others on the server.
const (
	TriggerPageView         = "page_view"
	TriggerPageViewDuration = "page_view_duration"
	TriggerElementClick     = "element_click"
	TriggerElementView      = "element_view"
	TriggerElementHover     = "element_hover"
	TriggerFormSubmit       = "form_submit"
	TriggerScrollDepth      = "scroll_depth"
	TriggerVideoViewTime    = "video_view_duration"
	TriggerWhatsAppKeyword  = "whatsapp_keyword_message"
	TriggerTrackingLink     = "click_tracking_link"
	TriggerCheckoutApproved = "checkout_transaction_approved"
)

// ClientTriggerTypes are the types the container's script fires in the browser.
var ClientTriggerTypes = []string{TriggerPageView, TriggerPageViewDuration, TriggerElementClick, TriggerElementView,
	TriggerElementHover, TriggerFormSubmit, TriggerScrollDepth, TriggerVideoViewTime}

// ClientTrigger reports whether triggers of type t fire in the browser.
func ClientTrigger(t string) bool { return slices.Contains(ClientTriggerTypes, t) }

// The fire modes of a client-side trigger.
const (
	FireOncePerPage    = "once_per_page"
	FireOncePerSession = "once_per_session"
	FireEveryTime      = "every_time"
)

// FireModes lists the fire modes; FireOncePerPage is the default.
var FireModes = []string{FireOncePerPage, FireOncePerSession, FireEveryTime}

// ConditionVariables are what a condition reads of the page.
var ConditionVariables = []string{"page_url", "page_path", "page_hostname", "page_title", "referrer",
	"utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term"}

// OperatorMatches tests a value against a regular expression (RE2 syntax, checked when saved).
const OperatorMatches = "matches"

// ConditionOperators compare a condition's variable with its value.
var ConditionOperators = []string{"equals", "notEquals", "contains", "notContains", "startsWith", "endsWith", OperatorMatches}

// Defaults and bounds of a trigger rule's members.
const (
	DefaultViewPercent  = 50
	DefaultHoverSeconds = 1
	DefaultVideoElement = "video"
	maxConditions       = 20
	maxConditionValue   = 1000
	maxSelector         = 500
	maxKeyword          = 100
	maxRuleSeconds      = 86400
)

// TriggerRule says when a trigger fires (config.trigger): its type and the members that type
// takes. Which members each type takes, and their defaults, are in ruleMembers; ValidateRule
// checks them.
type TriggerRule struct {
	Type       string      `json:"type"`
	Conditions []Condition `json:"conditions,omitempty"`
	Selector   string      `json:"selector,omitempty"`
	Seconds    float64     `json:"seconds,omitempty"`
	Percent    int         `json:"percent,omitempty"`
	Keyword    string      `json:"keyword,omitempty"`
	Fire       string      `json:"fire,omitempty"`
}

// Condition is a test on the page that must hold for a client-side trigger to fire.
type Condition struct {
	Variable string `json:"variable"`
	Operator string `json:"operator"`
	Value    string `json:"value"`
}

// need says whether a type takes a member: not at all, optionally (with a default), or needs it.
type need int

const (
	takesNo need = iota
	takes
	needs
)

// members are the members a trigger type takes, and the defaults of the optional ones.
type members struct {
	selector, seconds, percent, keyword need
	defSelector                         string
	defSeconds                          float64
	defPercent                          int
}

// ruleMembers are the members of each type beyond conditions and fire, which every client-side
// type takes and no server-side one does.
var ruleMembers = map[string]members{
	TriggerPageView:         {},
	TriggerPageViewDuration: {seconds: needs},
	TriggerElementClick:     {selector: needs},
	TriggerElementView:      {selector: needs, percent: takes, defPercent: DefaultViewPercent},
	TriggerElementHover:     {selector: needs, seconds: takes, defSeconds: DefaultHoverSeconds},
	TriggerFormSubmit:       {selector: takes},
	TriggerScrollDepth:      {percent: needs},
	TriggerVideoViewTime:    {selector: takes, defSelector: DefaultVideoElement, seconds: needs},
	TriggerWhatsAppKeyword:  {keyword: needs},
	TriggerTrackingLink:     {},
	TriggerCheckoutApproved: {},
	TriggerAPI:              {},
}

// jsIncompatible are RE2 constructs that a browser's RegExp reads otherwise or refuses: a
// condition's expression is run by the script, so it must mean the same in both.
// A leading (?i) is the one flag both read alike (see JSRegExp).
var jsIncompatible = []string{`\A`, `\z`, `\Q`, `\C`, `(?P<`, `[[:`, `(?i`, `(?s`, `(?m`, `(?U`, `\pN`, `\pL`}

// caseless is the inline flag that JSRegExp turns into a browser RegExp's i flag.
const caseless = "(?i)"

// JSRegExp returns the source and flags of the browser RegExp that means what the RE2
// expression expr means (a condition's value, checked by ValidateRule).
func JSRegExp(expr string) (source, flags string) {
	if rest, ok := strings.CutPrefix(expr, caseless); ok {
		return rest, "i"
	}
	return expr, ""
}

// ValidateRule checks a trigger rule (config.trigger) and returns it trimmed, with its type's
// defaults filled: a 400 names each bad member (config.trigger.selector, say). Saving a trigger
// checks its rule this way; this is for whoever reads a rule from elsewhere.
func ValidateRule(r TriggerRule) (TriggerRule, error) {
	var p problems
	r.Type = strings.TrimSpace(r.Type)
	if !ValidTriggerType(r.Type) {
		p.bad("config.trigger.type", "%q is not a trigger type (%s)", r.Type, strings.Join(TriggerTypes, ", "))
		return r, p.err("Invalid trigger.")
	}
	r = normalizeRule(r, &p)
	return r, p.err("Invalid trigger.")
}

// normalizeRule validates a trigger rule of a known type (members named config.trigger.*) into
// p and returns it trimmed, with its type's defaults filled and the members it does not take
// refused.
func normalizeRule(r TriggerRule, p *problems) TriggerRule {
	m := ruleMembers[r.Type]
	const at = "config.trigger."
	client := ClientTrigger(r.Type)
	check := func(member string, n need, set bool) bool {
		switch {
		case n == takesNo && set:
			p.bad(at+member, "a %s trigger takes no %s", r.Type, member)
		case n == needs && !set:
			p.missing(at + member)
		}
		return n != takesNo && set
	}
	r.Selector = strings.TrimSpace(r.Selector)
	if check("selector", m.selector, r.Selector != "") &&
		(utf8.RuneCountInString(r.Selector) > maxSelector || strings.ContainsRune(r.Selector, 0)) {
		p.bad(at+"selector", "a CSS selector of at most %d characters", maxSelector)
	}
	if r.Selector == "" && m.selector != takesNo {
		r.Selector = m.defSelector
	}
	if check("seconds", m.seconds, r.Seconds != 0) && (r.Seconds < 0 || r.Seconds > maxRuleSeconds) {
		p.bad(at+"seconds", "from more than 0 to %d", maxRuleSeconds)
	}
	if r.Seconds == 0 && m.seconds != takesNo {
		r.Seconds = m.defSeconds
	}
	if check("percent", m.percent, r.Percent != 0) && (r.Percent < 1 || r.Percent > 100) {
		p.bad(at+"percent", "an integer from 1 to 100")
	}
	if r.Percent == 0 && m.percent != takesNo {
		r.Percent = m.defPercent
	}
	r.Keyword = strings.TrimSpace(r.Keyword)
	if check("keyword", m.keyword, r.Keyword != "") &&
		(utf8.RuneCountInString(r.Keyword) > maxKeyword || strings.ContainsRune(r.Keyword, 0)) {
		p.bad(at+"keyword", "at most %d characters, without NUL characters", maxKeyword)
	}
	r.Fire = strings.TrimSpace(r.Fire)
	switch {
	case !client && r.Fire != "":
		p.bad(at+"fire", "a %s trigger fires once per occurrence on the server; fire is for client-side types", r.Type)
	case client && r.Fire == "":
		r.Fire = FireOncePerPage
	case client && !slices.Contains(FireModes, r.Fire):
		p.bad(at+"fire", "%q is not one of %s", r.Fire, strings.Join(FireModes, ", "))
	}
	if !client && len(r.Conditions) > 0 {
		p.bad(at+"conditions", "a %s trigger fires on the server; conditions are for client-side types", r.Type)
	}
	if len(r.Conditions) > maxConditions {
		p.bad(at+"conditions", "at most %d", maxConditions)
	}
	for i := range r.Conditions {
		r.Conditions[i] = normalizeCondition(r.Conditions[i], at+"conditions["+strconv.Itoa(i)+"].", p)
	}
	return r
}

// normalizeCondition validates one condition (members named prefix*).
func normalizeCondition(c Condition, prefix string, p *problems) Condition {
	c.Variable, c.Operator = strings.TrimSpace(c.Variable), strings.TrimSpace(c.Operator)
	switch {
	case c.Variable == "":
		p.missing(prefix + "variable")
	case !slices.Contains(ConditionVariables, c.Variable):
		p.bad(prefix+"variable", "%q is not one of %s", c.Variable, strings.Join(ConditionVariables, ", "))
	}
	switch {
	case c.Operator == "":
		p.missing(prefix + "operator")
	case !slices.Contains(ConditionOperators, c.Operator):
		p.bad(prefix+"operator", "%q is not one of %s", c.Operator, strings.Join(ConditionOperators, ", "))
	}
	switch {
	case utf8.RuneCountInString(c.Value) > maxConditionValue || strings.ContainsRune(c.Value, 0):
		p.bad(prefix+"value", "at most %d characters, without NUL characters", maxConditionValue)
	case c.Operator == OperatorMatches:
		if _, err := regexp.Compile(c.Value); err != nil {
			p.bad(prefix+"value", "not a regular expression (RE2 syntax): %v", err)
			break
		}
		src, _ := JSRegExp(c.Value)
		if i := slices.IndexFunc(jsIncompatible, func(s string) bool { return strings.Contains(src, s) }); i >= 0 {
			p.bad(prefix+"value", "%s is RE2 syntax that browsers read otherwise; write the expression without it", jsIncompatible[i])
		}
	}
	return c
}
