package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"mtk/internal/clock"
	"mtk/internal/jobs"
	"mtk/internal/wire"
	"mtk/platform"
)

func TestContainerCommands(t *testing.T) {
	useTestStores(t)
	wsID := cliJSON(t, "workspace", "create", "--name", "Acme")["id"].(string)
	prjID := cliJSON(t, "project", "create", "--workspace", wsID, "--name", "Shop", "--currency", "BRL", "--timezone", "America/Sao_Paulo")["id"].(string)
	token := cliJSON(t, "key", "create", "--workspace", wsID, "--name", "tag", "--scopes", "tracking:read")["token"].(string)

	v3 := cliJSON(t, "container", "create", "--project", prjID, "--domain", "Shop.Example")
	code, _ := v3["tracking_code"].(string)
	if !strings.HasPrefix(v3["id"].(string), "ctr_") || v3["version"] != "3.0" || v3["domain"] != "shop.example" ||
		v3["status"] != "pending" || !strings.HasPrefix(code, "MTK-") || len(code) != 10 {
		t.Fatalf("v3 container %v", v3)
	}
	v2 := cliJSON(t, "container", "create", "--project", prjID, "--domain", "shop.example", "--version", "2",
		"--alias", "Legacy", "--allowed-hosts", "www.shop.example, *.shop.example")
	meta := v2["metadata"].(map[string]any)
	if v2["version"] != "2.0" || v2["tracking_code"] != nil || v2["alias"] != "Legacy" || len(meta["allowed_hosts"].([]any)) != 2 {
		t.Fatalf("v2 container %v", v2)
	}
	out, _, exit := cli(t, "container", "create", "--project", prjID, "--domain", "other.example")
	if exit != 0 || !strings.Contains(out, "created container ctr_") || !strings.Contains(out, "tracking code: MTK-") {
		t.Fatalf("human output (exit %d): %s", exit, out)
	}
	// show prints the install line at MTK_BASE_URL, in words and in JSON.
	t.Setenv("MTK_BASE_URL", "https://mtk.example/")
	line := `<script async src="https://mtk.example/t/` + code + `.js"></script>`
	if out, errOut, exit := cli(t, "container", "show", v3["id"].(string)); exit != 0 || !strings.Contains(out, "tracking code: "+code) ||
		!strings.HasSuffix(strings.TrimSpace(out), "\n"+line) {
		t.Fatalf("show: exit %d %s %s", exit, out, errOut)
	}
	if shown := cliJSON(t, "container", "show", v3["id"].(string), "--json"); shown["install_line"] != line || shown["id"] != v3["id"] {
		t.Fatalf("show --json: %v", shown)
	}
	t.Setenv("MTK_BASE_URL", "")
	if out, errOut, exit := cli(t, "container", "verify", v3["id"].(string)); exit != 0 || !strings.Contains(out, "verified") {
		t.Fatalf("verify: exit %d %s %s", exit, out, errOut)
	}
	if _, errOut, exit := cli(t, "container", "delete", v2["id"].(string)); exit != 0 {
		t.Fatalf("delete: exit %d %s", exit, errOut)
	}

	base := serve(t)
	if status, body := get(t, base+"/v3/tracking/containers/"+strings.ToLower(code), token); status != 200 ||
		!strings.Contains(body, `"status":"pending_receive_events"`) || !strings.Contains(body, `{"domain":"shop.example","status":"verified"}`) {
		t.Fatalf("verified v3 container: %d %s", status, body)
	}
	if status, body := get(t, base+"/v3/tracking/containers/shop.example", token); status != 404 {
		t.Fatalf("deleted v2 container: %d %s", status, body)
	}

	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"container", "create", "--project", prjID}, 2, "missing --domain"},
		{[]string{"container", "create", "--project", prjID, "--domain", "x.example", "--version", "4"}, 1, `version: "4" is not 2 or 3`},
		{[]string{"container", "create", "--project", prjID, "--domain", "shop.example"}, 1, "domain: shop.example already has a live v3 container"},
		{[]string{"container", "create", "--project", prjID, "--domain", "x.example", "--allowed-hosts", "a b"}, 1, "allowed_hosts"},
		{[]string{"container", "create", "--project", "prj_nope", "--domain", "x.example"}, 1, "Project not found"},
		{[]string{"container", "verify", "ctr_nope"}, 1, "Container not found"},
		{[]string{"container", "show", "ctr_nope"}, 1, "Container ctr_nope not found"},
		{[]string{"container", "show"}, 2, "want: mtk container show <container id>"},
		{[]string{"container", "verify", v3["id"].(string), "--domain", "elsewhere.example"}, 1, "neither the container's domain"},
		{[]string{"container", "delete"}, 2, "want: mtk container delete <container id>"},
		{[]string{"container", "rename"}, 2, `unknown subcommand "rename"`},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			_, errOut, exit := cli(t, c.args...)
			if exit != c.code || !strings.Contains(errOut, c.want) {
				t.Fatalf("exit %d (want %d), stderr:\n%s\nwant it to contain %q", exit, c.code, errOut, c.want)
			}
		})
	}
}

func TestContainerStatusJob(t *testing.T) {
	useTestStores(t)
	cfg, err := loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := openStores(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := platform.New(st.pg, clock.Real{})
	ws, err := s.Workspaces.CreateWorkspace(ctx, "acme", platform.TierDefault)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Projects.CreateProject(ctx, platform.ProjectInput{WorkspaceID: ws.ID, Name: "Shop", Currency: "BRL", Timezone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Containers.CreateContainer(ctx, platform.ContainerInput{ProjectID: p.ID, Domain: "shop.example"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Containers.TouchContainer(ctx, c.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := st.pg.Exec(ctx, "UPDATE containers SET last_event_at = now() - interval '25 hours' WHERE id = $1", c.ID); err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	sys, err := wire.Build(cfg, st.pg, st.ch, wire.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer sys.Close()
	runner, err := jobs.New(ctx, quiet, sys.Jobs())
	if err != nil {
		t.Fatal(err)
	}
	if err := runner.RunNow("container-status"); err != nil {
		t.Fatal(err)
	}
	got, err := s.Containers.ContainerIn(ctx, ws.ID, c.ID)
	if err != nil || got.Status != platform.ContainerNotReceiving {
		t.Fatalf("after the job: %s (%v)", got.Status, err)
	}
}
