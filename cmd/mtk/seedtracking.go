package main

import (
	"context"
	"slices"

	"mtk/api/demoshop"
	"mtk/platform"
)

// demoContainer is a container of the demo project with its pixel and triggers.
type demoContainer struct {
	in       platform.ContainerInput
	verified bool
	triggers []platform.TriggerInput
}

// demoPixel is the first network's pixel that the demo containers feed: the pixel of the demo's
// alpha_ads account in the simulator, so that forwarded conversions reach it.
func demoPixel(id string) platform.LinkedPixel {
	return platform.LinkedPixel{Source: platform.KindAlpha, ID: id, Name: "Demo Store pixel"}
}

func demoTrigger(typ, name, event, alpha string) platform.TriggerInput {
	return platform.TriggerInput{Name: name, Config: platform.TriggerConfig{
		Trigger: platform.TriggerRule{Type: typ}, Name: event, Alpha: platform.AlphaEvent{Name: alpha},
	}}
}

// withKeyword sets the keyword of a whatsapp_keyword_message trigger.
func withKeyword(in platform.TriggerInput, keyword string) platform.TriggerInput {
	in.Config.Trigger.Keyword = keyword
	return in
}

// withRule sets the members of a client-side trigger's rule (its type stays).
func withRule(in platform.TriggerInput, r platform.TriggerRule) platform.TriggerInput {
	r.Type = in.Config.Trigger.Type
	in.Config.Trigger = r
	return in
}

// demoContainers are the demo's v3 container (verified, several trigger types) and a legacy v2 one.
var demoContainers = []demoContainer{
	{
		in: platform.ContainerInput{
			Domain: "demo-store.example", Version: "3", Alias: "Demo Store",
			// The demo shop (api/demoshop, make run) is served at shop.localhost.
			AllowedHosts: []string{"demo-store.example", "*.demo-store.example", demoshop.Host}, HasFunnelSteps: true,
		},
		verified: true,
		triggers: []platform.TriggerInput{
			demoTrigger("api", "Purchase (API)", "purchase_api", "Purchase"),
			demoTrigger("page_view", "All pages", "page_view", "PageView"),
			demoTrigger("checkout_transaction_approved", "Approved checkout", "checkout_approved", "Purchase"),
			withKeyword(demoTrigger("whatsapp_keyword_message", "WhatsApp: quero comprar", "whatsapp_lead", "Lead"), "quero comprar"),
			demoTrigger("click_tracking_link", "Tracking link click", "link_click", "Contact"),
			// The demo shop's pages fire these.
			withRule(demoTrigger("element_click", "Add to cart", "add_to_cart", "AddToCart"), platform.TriggerRule{Selector: ".add-to-cart", Fire: platform.FireEveryTime}),
			withRule(demoTrigger("form_submit", "Contact form", "lead", "Lead"), platform.TriggerRule{Selector: "#lead-form"}),
			withRule(demoTrigger("scroll_depth", "Guide read halfway", "guide_read", "ViewContent"), platform.TriggerRule{Percent: 50,
				Conditions: []platform.Condition{{Variable: "page_path", Operator: "startsWith", Value: "/demo-shop/guide"}}}),
			withRule(demoTrigger("video_view_duration", "Video watched 3 s", "video_watched", "ViewContent"), platform.TriggerRule{Seconds: 3}),
			withRule(demoTrigger("page_view_duration", "Engaged visit (20 s)", "engaged_visit", "ViewContent"), platform.TriggerRule{Seconds: 20}),
		},
	},
	{
		in: platform.ContainerInput{Domain: "legacy.demo-store.example", Version: "2", Alias: "Demo Store (legacy tag)"},
		triggers: []platform.TriggerInput{
			demoTrigger("page_view", "All pages", "page_view", "PageView"),
			demoTrigger("form_submit", "Newsletter form", "newsletter_signup", "CompleteRegistration"),
		},
	},
}

// seedContainers creates what is missing of the demo containers (matched by domain and version),
// their pixel and their triggers (matched by name), and returns them.
func seedContainers(ctx context.Context, s *platform.Containers, projectID, pixelID string) ([]platform.Container, error) {
	existing, err := s.ListContainers(ctx, projectID)
	if err != nil {
		return nil, err
	}
	var out []platform.Container
	for _, want := range demoContainers {
		i := slices.IndexFunc(existing, func(c platform.Container) bool {
			return c.Domain == want.in.Domain && c.Version[:1] == want.in.Version
		})
		var c platform.Container
		if i >= 0 {
			c = existing[i]
		} else {
			in := want.in
			in.ProjectID = projectID
			if c, err = s.CreateContainer(ctx, in); err != nil {
				return nil, err
			}
		}
		if err := s.LinkPixel(ctx, c.ID, demoPixel(pixelID)); err != nil {
			return nil, err
		}
		if want.verified {
			if err := s.VerifyContainerDomain(ctx, c.ID, ""); err != nil {
				return nil, err
			}
		}
		for _, tr := range want.triggers {
			if slices.ContainsFunc(c.Triggers, func(t platform.TriggerSummary) bool { return t.Name == tr.Name }) {
				continue
			}
			if _, err := s.AddPlatformTrigger(ctx, c.ID, tr); err != nil {
				return nil, err
			}
		}
		out = append(out, c)
	}
	// Read them again, with their pixel, triggers and status.
	all, err := s.ListContainers(ctx, projectID)
	if err != nil {
		return nil, err
	}
	for i, c := range out {
		out[i] = all[slices.IndexFunc(all, func(x platform.Container) bool { return x.ID == c.ID })]
	}
	return out, nil
}
