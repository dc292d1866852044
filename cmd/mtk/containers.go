package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"mtk/platform"
	"mtk/tag"
)

func runContainer(ctx context.Context, args []string, out io.Writer) error {
	sub, rest, err := subcommand(args, "create", "show", "verify", "delete")
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("container "+sub, flag.ContinueOnError)
	create := flagsOf(fs, sub, "create")
	var in platform.ContainerInput
	create.StringVar(&in.ProjectID, "project", "", "project id")
	flagsOf(fs, sub, "create", "verify").StringVar(&in.Domain, "domain", "", "the site's domain (verify: the domain to mark verified; default the container's)")
	create.StringVar(&in.Version, "version", "3", "2 (legacy, addressed by domain) or 3 (addressed by tracking code)")
	create.StringVar(&in.Alias, "alias", "", "display name; default the domain")
	hosts := create.String("allowed-hosts", "", "comma-separated hosts the tag accepts events from (host or *.host); default the domain")
	asJSON := flagsOf(fs, sub, "create", "show").Bool("json", false, "print the container as JSON (show: with install_line)")
	positional, err := parseFlags(fs, rest)
	if err != nil {
		return err
	}
	if sub != "create" && len(positional) != 1 {
		return usageError{fmt.Sprintf("want: mtk container %s <container id>", sub)}
	}
	return withPlatform(ctx, func(s *platform.Services, baseURL string) error {
		switch sub {
		case "create":
			if err := required(map[string]string{"project": in.ProjectID, "domain": in.Domain}); err != nil {
				return err
			}
			in.AllowedHosts = splitList(*hosts)
			c, err := s.Containers.CreateContainer(ctx, in)
			if err != nil {
				return err
			}
			human := fmt.Sprintf("created container %s (version %s, %s, status %s)", c.ID, c.Version, c.Domain, c.Status)
			if c.TrackingCode != nil {
				human += "\ntracking code: " + *c.TrackingCode
			}
			return emit(out, *asJSON, c, human)
		case "show":
			c, err := s.Containers.ContainerByID(ctx, positional[0])
			if err != nil {
				return err
			}
			return showContainer(out, *asJSON, c, baseURL)
		case "verify":
			if err := s.Containers.VerifyContainerDomain(ctx, positional[0], in.Domain); err != nil {
				return err
			}
			_, err := fmt.Fprintf(out, "verified a domain of container %s\n", positional[0])
			return err
		default:
			if err := s.Containers.DeleteContainer(ctx, positional[0]); err != nil {
				return err
			}
			_, err := fmt.Fprintf(out, "deleted container %s\n", positional[0])
			return err
		}
	})
}

// shownContainer is a container as `mtk container show --json` prints it: with its install line.
type shownContainer struct {
	platform.Container
	InstallLine string `json:"install_line"`
}

// showContainer prints a container and the line that installs its tag.
func showContainer(out io.Writer, asJSON bool, c platform.Container, baseURL string) error {
	line := tag.InstallLine(baseURL, tag.Ref(c))
	code := "-"
	if c.TrackingCode != nil {
		code = *c.TrackingCode
	}
	human := fmt.Sprintf("container %s (%s, version %s, %s, status %s)\ntracking code: %s\ntriggers: %d\n"+
		"install: paste this line into the <head> of every page of %s:\n%s",
		c.ID, c.Alias, c.Version, c.Domain, c.Status, code, len(c.Triggers), c.Domain, line)
	return emit(out, asJSON, shownContainer{Container: c, InstallLine: line}, human)
}
