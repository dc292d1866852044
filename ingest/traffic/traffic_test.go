package traffic

import "testing"

// Real User-Agents, as browsers, crawlers and tools send them.
func TestDevice(t *testing.T) {
	for _, c := range []struct{ ua, want string }{
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36", Desktop},
		{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Safari/605.1.15", Desktop},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0", Desktop},
		{"Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0", Desktop},
		{"Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36", Desktop},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.67", Desktop},
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1", Mobile},
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/124.0.6367.88 Mobile/15E148 Safari/604.1", Mobile},
		{"Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36", Mobile},
		{"Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36", Mobile},
		{"Mozilla/5.0 (Android 14; Mobile; rv:125.0) Gecko/125.0 Firefox/125.0", Mobile},
		{"Mozilla/5.0 (Linux; Android 13; SM-A536E Build/TP1A.220624.014; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/123.0.6312.118 Mobile Safari/537.36 Instagram 327.0.0.42.91 Android", Mobile},
		{"Mozilla/5.0 (iPad; CPU OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1", Tablet},
		{"Mozilla/5.0 (Linux; Android 13; SM-X200) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36", Tablet},
		{"Mozilla/5.0 (Linux; Android 9; KFTRWI) AppleWebKit/537.36 (KHTML, like Gecko) Silk/124.2.1 like Chrome/124.0.6367.82 Safari/537.36", Tablet},
		{"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", Bot},
		{"Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", Bot},
		{"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", Bot},
		{"facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", Bot},
		{"Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)", Bot},
		{"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/124.0.0.0 Safari/537.36", Bot},
		{"curl/8.5.0", Bot},
		{"python-requests/2.31.0", Bot},
		{"Go-http-client/1.1", Bot},
		{"Mozilla/5.0 (SMART-TV; LINUX; Tizen 6.5) AppleWebKit/537.36 (KHTML, like Gecko) 85.0.4183.93/6.5 TV Safari/537.36", Other},
		{"", Other},
		{"something else", Other},
	} {
		if got := Device(c.ua); got != c.want {
			t.Errorf("Device(%q) = %q, want %q", c.ua, got, c.want)
		}
	}
}

func TestReferrerHost(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://www.Google.com/search?q=x", "www.google.com"},
		{"https://l.instagram.com/?u=https%3A%2F%2Fshop.example", "l.instagram.com"},
		{"http://user:pw@Example.COM:8080/a", "example.com"},
		{"android-app://com.google.android.gm/", "com.google.android.gm"},
		{"", ""},
		{"not a url", ""},
		{"/relative", ""},
	} {
		if got := ReferrerHost(c.in); got != c.want {
			t.Errorf("ReferrerHost(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestLandingPath(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://shop.example/produto/caf%C3%A9?utm_source=fb#top", "/produto/caf%C3%A9"},
		{"https://shop.example", "/"},
		{"https://shop.example?utm_source=x", "/"},
		{"https://shop.example:8443/checkout/", "/checkout/"},
		{"https://shop.example/#/p?utm_source=x", "/"},
		{"/checkout?x=1", "/checkout"},
		{"", ""},
		{"shop.example/x", ""},
	} {
		if got := LandingPath(c.in); got != c.want {
			t.Errorf("LandingPath(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// A referrer is another site's unless it is the page's host or one of the site's own, a leading
// www. aside.
func TestExternal(t *testing.T) {
	own := func(h string) bool { return h == "shop.example" || h == "checkout.example" }
	for _, c := range []struct {
		referrer, page string
		want           bool
	}{
		{"www.google.com", "https://shop.example/p", true},
		{"l.instagram.com", "", true},
		{"", "https://shop.example/p", false},
		{"shop.example", "https://shop.example/p", false},
		{"www.shop.example", "https://shop.example/p", false},
		{"shop.example", "https://WWW.Shop.example:8443/p", false},
		{"checkout.example", "https://shop.example/p", false},
		{"www.checkout.example", "", false},
		{"blog.example", "https://blog.example/post", false}, // the page's own host, not the container's
		{"blog.example", "/post", true},
	} {
		if got := External(c.referrer, c.page, own); got != c.want {
			t.Errorf("External(%q, %q) = %v, want %v", c.referrer, c.page, got, c.want)
		}
	}
}
