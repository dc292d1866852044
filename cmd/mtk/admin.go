package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"mtk/internal/clock"
	"mtk/internal/config"
	"mtk/platform"
)

// parseFlags parses fs from args, allowing flags after positional arguments, and returns the
// positional ones. -h or --help is a helpRequest with fs's flags.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var positional []string
	for {
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			return nil, helpRequest{name: fs.Name(), flags: flagDefaults(fs)}
		} else if err != nil {
			return nil, usageError{err.Error()}
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// required names the flags left empty.
func required(flags map[string]string) error {
	var missing []string
	for name, v := range flags {
		if strings.TrimSpace(v) == "" {
			missing = append(missing, "--"+name)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return usageError{"missing " + strings.Join(missing, ", ")}
	}
	return nil
}

// withPlatform opens the stores and runs fn with a platform store.
func withPlatform(ctx context.Context, fn func(*platform.Store, string) error) error {
	return withStores(ctx, func(cfg config.Config, st stores) error {
		return fn(platform.NewStore(st.pg, clock.Real{}), cfg.BaseURL)
	})
}

// emit prints v as one JSON object when asJSON, else the human line.
func emit(out io.Writer, asJSON bool, v any, human string) error {
	if asJSON {
		enc := json.NewEncoder(out)
		return enc.Encode(v)
	}
	_, err := fmt.Fprintln(out, human)
	return err
}

// when is a listing's time cell: RFC 3339 in UTC, or - for none.
func when(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

// revokeOne revokes the one id of a revoke subcommand's arguments (what, say "key", names it in
// the usage) and prints what revoke returns, as JSON or as human with the id.
func revokeOne(out io.Writer, asJSON bool, positional []string, what string, revoke func(string) (any, error), human string) error {
	if len(positional) != 1 {
		return usageError{fmt.Sprintf("want: mtk %s revoke <%s id>", what, what)}
	}
	v, err := revoke(positional[0])
	if err != nil {
		return err
	}
	return emit(out, asJSON, v, fmt.Sprintf(human, positional[0]))
}

// emitList prints items as one JSON array when asJSON (empty, never null), else as print's table.
func emitList[T any](out io.Writer, asJSON bool, items []T, print func(io.Writer, []T) error) error {
	if !asJSON {
		return print(out, items)
	}
	if items == nil {
		items = []T{}
	}
	return json.NewEncoder(out).Encode(items)
}

// subcommand splits "create ..." from its arguments.
func subcommand(args []string, allowed ...string) (string, []string, error) {
	if len(args) == 0 {
		return "", nil, usageError{"want one of: " + strings.Join(allowed, ", ")}
	}
	if isHelp(args[0]) {
		return "", nil, helpRequest{flags: "\nAdd --help after a subcommand for its flags.\n"}
	}
	for _, a := range allowed {
		if args[0] == a {
			return a, args[1:], nil
		}
	}
	return "", nil, usageError{fmt.Sprintf("unknown subcommand %q; want one of: %s", args[0], strings.Join(allowed, ", "))}
}

func runWorkspace(ctx context.Context, args []string, out io.Writer) error {
	_, rest, err := subcommand(args, "create")
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("workspace create", flag.ContinueOnError)
	name := fs.String("name", "", "workspace name")
	tier := fs.String("tier", platform.TierDefault, "default, growth or enterprise")
	asJSON := fs.Bool("json", false, "print the created object as JSON")
	if _, err := parseFlags(fs, rest); err != nil {
		return err
	}
	if err := required(map[string]string{"name": *name}); err != nil {
		return err
	}
	return withPlatform(ctx, func(s *platform.Store, _ string) error {
		w, err := s.CreateWorkspace(ctx, *name, *tier)
		if err != nil {
			return err
		}
		return emit(out, *asJSON, w, fmt.Sprintf("created workspace %s (%s, tier %s)", w.ID, w.Name, w.Tier))
	})
}

func runUser(ctx context.Context, args []string, out io.Writer) error {
	sub, rest, err := subcommand(args, "create", "password")
	if err != nil {
		return err
	}
	if sub == "password" {
		return runUserPassword(ctx, rest, out)
	}
	fs := flag.NewFlagSet("user create", flag.ContinueOnError)
	email := fs.String("email", "", "login e-mail")
	name := fs.String("name", "", "display name")
	password := fs.String("password", "", "password (at least 8 characters)")
	workspace := fs.String("workspace", "", "workspace to join")
	role := fs.String("role", platform.RoleOwner, "owner, admin or member")
	asJSON := fs.Bool("json", false, "print the created object as JSON")
	if _, err := parseFlags(fs, rest); err != nil {
		return err
	}
	if err := required(map[string]string{"email": *email, "password": *password}); err != nil {
		return err
	}
	return withPlatform(ctx, func(s *platform.Store, _ string) error {
		u, err := s.CreateUser(ctx, *email, *name, *password, *workspace, *role)
		if err != nil {
			return err
		}
		return emit(out, *asJSON, u, fmt.Sprintf("created user %s (%s)", u.ID, u.Email))
	})
}

// runUserPassword sets a user's password; their login tokens issued before are refused.
func runUserPassword(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("user password", flag.ContinueOnError)
	email := fs.String("email", "", "the user's login e-mail")
	password := fs.String("password", "", "the new password (at least 8 characters)")
	asJSON := fs.Bool("json", false, "print the user as JSON")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := required(map[string]string{"email": *email, "password": *password}); err != nil {
		return err
	}
	return withPlatform(ctx, func(s *platform.Store, _ string) error {
		u, err := s.SetPassword(ctx, *email, *password)
		if err != nil {
			return err
		}
		return emit(out, *asJSON, u, fmt.Sprintf("changed the password of user %s (%s); their earlier login tokens are refused", u.ID, u.Email))
	})
}

func runKey(ctx context.Context, args []string, out io.Writer) error {
	sub, rest, err := subcommand(args, "create", "list", "revoke")
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("key "+sub, flag.ContinueOnError)
	workspace := flagsOf(fs, sub, "create", "list").String("workspace", "", "workspace id")
	name := flagsOf(fs, sub, "create").String("name", "", "key name")
	scopes := flagsOf(fs, sub, "create").String("scopes", "", "comma-separated scopes: data:read,data:write,tracking:read,tracking:write")
	expires := flagsOf(fs, sub, "create").String("expires", "never", "never, 30d, 90d, 1y or an RFC 3339 time")
	asJSON := fs.Bool("json", false, "print JSON")
	positional, err := parseFlags(fs, rest)
	if err != nil {
		return err
	}
	return withPlatform(ctx, func(s *platform.Store, _ string) error {
		switch sub {
		case "create":
			if err := required(map[string]string{"workspace": *workspace, "name": *name, "scopes": *scopes}); err != nil {
				return err
			}
			exp, err := platform.ParseExpiry(*expires, time.Now())
			if err != nil {
				return err
			}
			k, err := s.CreateAPIKey(ctx, *workspace, *name, splitList(*scopes), exp)
			if err != nil {
				return err
			}
			return emit(out, *asJSON, k, fmt.Sprintf("created key %s (%s)\ntoken (shown once): %s", k.ID, strings.Join(k.Scopes, ","), k.Token))
		case "list":
			if err := required(map[string]string{"workspace": *workspace}); err != nil {
				return err
			}
			keys, err := s.ListAPIKeys(ctx, *workspace)
			if err != nil {
				return err
			}
			return emitList(out, *asJSON, keys, printKeys)
		default:
			return revokeOne(out, *asJSON, positional, "key", func(id string) (any, error) { return s.RevokeAPIKey(ctx, id) },
				"revoked key %s")
		}
	})
}

func printKeys(out io.Writer, keys []platform.APIKey) error {
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tPREFIX\tSCOPES\tOAUTH CLIENT\tEXPIRES\tREVOKED\tLAST USED")
	for _, k := range keys {
		client := "-"
		if k.OAuthClientID != nil {
			client = *k.OAuthClientID
		}
		fmt.Fprintf(tw, "%s\t%s\t%s…\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, k.Prefix, strings.Join(k.Scopes, ","), client,
			when(k.ExpiresAt), when(k.RevokedAt), when(k.LastUsedAt))
	}
	return tw.Flush()
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

func runProject(ctx context.Context, args []string, out io.Writer) error {
	_, rest, err := subcommand(args, "create")
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("project create", flag.ContinueOnError)
	var in platform.ProjectInput
	fs.StringVar(&in.WorkspaceID, "workspace", "", "workspace id")
	fs.StringVar(&in.Name, "name", "", "project name")
	fs.StringVar(&in.Description, "description", "", "description")
	fs.StringVar(&in.Logo, "logo", "", "logo URL")
	fs.StringVar(&in.Currency, "currency", "", "default currency (ISO 4217)")
	fs.StringVar(&in.Timezone, "timezone", "", "IANA time zone")
	asJSON := fs.Bool("json", false, "print the created object as JSON")
	if _, err := parseFlags(fs, rest); err != nil {
		return err
	}
	if err := required(map[string]string{"workspace": in.WorkspaceID, "name": in.Name, "currency": in.Currency, "timezone": in.Timezone}); err != nil {
		return err
	}
	return withPlatform(ctx, func(s *platform.Store, _ string) error {
		p, err := s.CreateProject(ctx, in)
		if err != nil {
			return err
		}
		return emit(out, *asJSON, p, fmt.Sprintf("created project %s (%s, %s, %s)", p.ID, p.Name, p.Currency, p.Timezone))
	})
}

func runConnection(ctx context.Context, args []string, out io.Writer) error {
	_, rest, err := subcommand(args, "create")
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("connection create", flag.ContinueOnError)
	var in platform.ConnectionInput
	fs.StringVar(&in.ProjectID, "project", "", "project id")
	fs.StringVar(&in.Kind, "kind", "", "alpha_ads, beta_ads, gamma_ads or custom")
	fs.StringVar(&in.Name, "name", "", "connection name")
	fs.StringVar(&in.SourceID, "source-id", "", "ad account id at the network")
	fs.StringVar(&in.APIBaseURL, "api-base-url", "", "base URL of the network's API (adsim in development)")
	fs.StringVar(&in.AccessToken, "access-token", "", "access token for the network's API")
	asJSON := fs.Bool("json", false, "print the created object as JSON")
	if _, err := parseFlags(fs, rest); err != nil {
		return err
	}
	if err := required(map[string]string{"project": in.ProjectID, "kind": in.Kind, "name": in.Name}); err != nil {
		return err
	}
	return withPlatform(ctx, func(s *platform.Store, baseURL string) error {
		c, err := s.CreateConnection(ctx, in)
		if err != nil {
			return err
		}
		c = c.WithWebhookURL(baseURL)
		human := fmt.Sprintf("created connection %s (%s %s)", c.ID, c.Source, c.Name)
		if c.WebhookURL != nil {
			human += "\nwebhook URL: " + *c.WebhookURL
		}
		return emit(out, *asJSON, c, human)
	})
}
