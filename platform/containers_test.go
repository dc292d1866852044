package platform

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"mtk/internal/apperr"
)

func TestCreateContainer(t *testing.T) {
	s, _, p := newTestStore(t)
	ctx := context.Background()

	v3, err := s.Containers.CreateContainer(ctx, ContainerInput{ProjectID: p.ID, Domain: " Shop.Example. "})
	if err != nil {
		t.Fatal(err)
	}
	if v3.Version != ContainerV3 || v3.Domain != "shop.example" || v3.Alias != "shop.example" || v3.WorkspaceID != p.WorkspaceID ||
		v3.TrackingCode == nil || !regexp.MustCompile(`^MTK-[0-9A-HJKMNP-TV-Z]{6}$`).MatchString(*v3.TrackingCode) ||
		!slices.Equal(v3.Metadata.AllowedHosts, []string{"shop.example"}) || v3.Metadata.LeadKey != DefaultLeadKey ||
		len(v3.LinkedPixels) != 0 || len(v3.Triggers) != 0 {
		t.Fatalf("v3 container %+v", v3)
	}
	v2, err := s.Containers.CreateContainer(ctx, ContainerInput{
		ProjectID: p.ID, Domain: "shop.example", Version: "2", Alias: "Legacy",
		AllowedHosts: []string{"WWW.shop.example", "*.shop.example", "www.shop.example"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if v2.Version != ContainerV2 || v2.TrackingCode != nil || v2.Alias != "Legacy" ||
		!slices.Equal(v2.Metadata.AllowedHosts, []string{"*.shop.example", "www.shop.example"}) {
		t.Fatalf("v2 container %+v", v2)
	}
	if err := s.Containers.LinkPixel(ctx, v2.ID, LinkedPixel{Source: KindAlpha, ID: "123", Name: "Main"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Containers.LinkPixel(ctx, v2.ID, LinkedPixel{Source: KindAlpha, ID: "123", Name: "Renamed"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Containers.ContainerIn(ctx, p.WorkspaceID, "SHOP.example")
	if err != nil || got.ID != v2.ID || len(got.LinkedPixels) != 1 || got.LinkedPixels[0] != (LinkedPixel{KindAlpha, "123", "Renamed"}) {
		t.Fatalf("v2 by domain: %+v %v", got, err)
	}

	cases := []struct {
		name string
		in   ContainerInput
		code string
		want string
	}{
		{"nothing", ContainerInput{}, apperr.CodeMissingParameter, "domain: required"},
		{"bad domain", ContainerInput{ProjectID: p.ID, Domain: "https://shop.example/"}, apperr.CodeInvalidParameter, "domain:"},
		{"single label", ContainerInput{ProjectID: p.ID, Domain: "localhost"}, apperr.CodeInvalidParameter, "domain:"},
		{"version", ContainerInput{ProjectID: p.ID, Domain: "a.example", Version: "4"}, apperr.CodeInvalidParameter, `version: "4" is not 2 or 3`},
		{"allowed host", ContainerInput{ProjectID: p.ID, Domain: "a.example", AllowedHosts: []string{"a.example", "bad host"}}, apperr.CodeInvalidParameter, "allowed_hosts: [1]"},
		{"alias", ContainerInput{ProjectID: p.ID, Domain: "a.example", Alias: strings.Repeat("x", 101)}, apperr.CodeInvalidParameter, "alias:"},
		{"live v3 on the domain", ContainerInput{ProjectID: p.ID, Domain: "shop.example", Version: "3.0"}, apperr.CodeInvalidParameter, "already has a live v3 container"},
		{"live v2 on the domain", ContainerInput{ProjectID: p.ID, Domain: "shop.example", Version: "2.0"}, apperr.CodeInvalidParameter, "already has a live v2 container"},
		{"unknown project", ContainerInput{ProjectID: "prj_nope", Domain: "b.example"}, apperr.CodeResourceNotFound, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.Containers.CreateContainer(ctx, c.in)
			e, ok := apperr.As(err)
			if !ok || e.Code != c.code || !strings.Contains(strings.Join(e.Details, "\n"), c.want) {
				t.Fatalf("got %v, want %s with %q", err, c.code, c.want)
			}
		})
	}
}
