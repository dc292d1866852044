package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"mtk/platform"
)

// repeated is a flag that may be given more than once (--redirect-uri).
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

// runOAuthClient registers, lists and revokes the third-party platforms that may ask workspaces
// for API keys through OAuth.
func runOAuthClient(ctx context.Context, args []string, out io.Writer) error {
	sub, rest, err := subcommand(args, "create", "list", "revoke")
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("oauth-client "+sub, flag.ContinueOnError)
	create := flagsOf(fs, sub, "create")
	name := create.String("name", "", "the platform's name, shown on the consent page")
	var redirects repeated
	create.Var(&redirects, "redirect-uri", "a redirect URI (repeat for more): https, loopback http, or com.example.app:/path")
	scopes := create.String("scopes", "", "comma-separated scopes the platform may ask for")
	public := create.Bool("public", false, "a public client (native or browser app): no secret, PKCE alone")
	asJSON := fs.Bool("json", false, "print JSON")
	positional, err := parseFlags(fs, rest)
	if err != nil {
		return err
	}
	return withPlatform(ctx, func(s *platform.Store, _ string) error {
		switch sub {
		case "create":
			if err := required(map[string]string{"name": *name, "scopes": *scopes, "redirect-uri": redirects.String()}); err != nil {
				return err
			}
			c, err := s.CreateOAuthClient(ctx, platform.OAuthClientInput{Name: *name, RedirectURIs: redirects,
				Scopes: splitList(*scopes), Confidential: !*public})
			if err != nil {
				return err
			}
			human := fmt.Sprintf("created OAuth client %s (%s)\nclient_id: %s\nredirect URIs: %s\nscopes: %s", c.ID, c.Name, c.ID,
				strings.Join(c.RedirectURIs, " "), strings.Join(c.Scopes, ","))
			if c.Confidential {
				human += "\nclient_secret (shown once): " + c.Secret
			} else {
				human += "\npublic client: no secret; it must use PKCE"
			}
			return emit(out, *asJSON, c, human)
		case "list":
			clients, err := s.ListOAuthClients(ctx)
			if err != nil {
				return err
			}
			return emitList(out, *asJSON, clients, printOAuthClients)
		default:
			return revokeOne(out, *asJSON, positional, "oauth-client", func(id string) (any, error) { return s.RevokeOAuthClient(ctx, id) },
				"revoked OAuth client %s and every key issued to it")
		}
	})
}

func printOAuthClients(out io.Writer, clients []platform.OAuthClient) error {
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLIENT ID\tNAME\tTYPE\tSCOPES\tREDIRECT URIS\tREVOKED")
	for _, c := range clients {
		kind := "public"
		if c.Confidential {
			kind = "confidential"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", c.ID, c.Name, kind, strings.Join(c.Scopes, ","), strings.Join(c.RedirectURIs, " "), when(c.RevokedAt))
	}
	return tw.Flush()
}
