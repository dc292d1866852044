package dashboard_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"mtk/api"
	"mtk/api/demoshop"
	apifixture "mtk/internal/apitest/fixture"
	"mtk/internal/clock"
	"mtk/internal/config"
	"mtk/internal/testenv"
	"mtk/internal/wire"
	"mtk/platform"
)

// The demo shop walk-through in Chromium: a visitor opens the shop at shop.localhost, clicks
// Add to cart and sends the contact form; the container's tag fires page views, the click and
// the form, and they land in the events table, as the Tags view counts them.
func TestDemoShopWalkThrough(t *testing.T) {
	ctx := context.Background()
	pg, ch := testenv.Postgres(t), testenv.ClickHouse(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	sys, err := wire.Build(config.Config{ClickHouseURL: ch.URL, PostgresURL: pg.URL, JWTSecret: "demo-shop-test-secret-0123456789abcdef",
		BaseURL: base, RateLimits: config.Off, DemoShop: true}, pg.Pool, ch.Conn,
		wire.Options{Clock: clock.Real{}, Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sys.Close)
	app := api.New(sys.API())
	go app.Listener(ln) //nolint:errcheck // ends with Shutdown
	t.Cleanup(func() { _ = app.Shutdown() })
	s := sys.Store
	ws := must(s.Workspaces.CreateWorkspace(ctx, "Shop Co", platform.TierGrowth))
	p := must(s.Projects.CreateProject(ctx, platform.ProjectInput{WorkspaceID: ws.ID, Name: "Shop", Currency: "BRL", Timezone: "UTC"}))
	c := must(s.Containers.CreateContainer(ctx, platform.ContainerInput{ProjectID: p.ID, Domain: "demo-store.example",
		AllowedHosts: []string{"demo-store.example", demoshop.Host}}))
	for _, in := range []platform.TriggerInput{
		{Name: "All pages", Config: platform.TriggerConfig{Trigger: platform.TriggerRule{Type: "page_view"}, Name: "page_view", Alpha: platform.AlphaEvent{Name: "PageView"}}},
		{Name: "Add to cart", Config: platform.TriggerConfig{Trigger: platform.TriggerRule{Type: "element_click", Selector: ".add-to-cart"}, Name: "add_to_cart", Alpha: platform.AlphaEvent{Name: "AddToCart"}}},
		{Name: "Contact form", Config: platform.TriggerConfig{Trigger: platform.TriggerRule{Type: "form_submit", Selector: "#lead-form"}, Name: "lead", Alpha: platform.AlphaEvent{Name: "Lead"}}},
	} {
		must(s.Containers.AddPlatformTrigger(ctx, c.ID, in))
	}

	shop := "http://" + demoshop.Host + ":" + portOf(ln) + demoshop.Path
	tb := newTab(t, 390, 844)
	tb.Run(chromedp.Navigate(shop), chromedp.WaitVisible(chromedp.CSS(".add-to-cart")), chromedp.Sleep(500*time.Millisecond),
		chromedp.Click(chromedp.CSS(".add-to-cart")), chromedp.Sleep(500*time.Millisecond),
		chromedp.Navigate(shop+"contact"), chromedp.WaitVisible(chromedp.ID("email")),
		chromedp.SendKeys(chromedp.ID("email"), "ana@example.com"), chromedp.SendKeys(chromedp.ID("phone"), "+55 11 98888-7777"),
		chromedp.Click(chromedp.CSS(`#lead-form button`)), chromedp.WaitVisible(chromedp.CSS("h1")), chromedp.Sleep(1500*time.Millisecond))

	want := map[string]uint64{"page_view": 3, "add_to_cart": 1, "lead": 1}
	var got map[string]uint64
	for deadline := time.Now().Add(20 * time.Second); ; {
		apifixture.Drain(t, sys)
		got = map[string]uint64{}
		rows, err := ch.Conn.Query(ctx, "SELECT name, count() FROM events WHERE project_id = ? GROUP BY name", p.ID)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var name string
			var n uint64
			if err := rows.Scan(&name, &n); err != nil {
				t.Fatal(err)
			}
			got[name] = n
		}
		rows.Close()
		if equalCounts(got, want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(300 * time.Millisecond)
	}
	if !equalCounts(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	t.Logf("the walk-through stored %v", got)
}

func portOf(ln net.Listener) string {
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

func equalCounts(a, b map[string]uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
