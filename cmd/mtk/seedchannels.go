package main

import (
	"math/rand"
	"strings"
)

// channel is one of the shop's traffic sources besides the ad networks: where its visitors come
// from (referrers, UTM) and where they land. share is its new buyers per paid buyer of the day.
type channel struct {
	name      string
	share     float64
	referrers []string // "" is none (a typed address, an app that hides it)
	landings  []string
	utm       func(r *rand.Rand) map[string]string // nil: the links carry no UTM
}

// demoChannels are the demo shop's unpaid sources: e-mail and WhatsApp links carry UTM, organic
// search and Instagram come with a referrer only, direct visits with neither.
var demoChannels = []channel{
	{name: "organic search", share: 0.10, referrers: []string{"https://www.google.com/", "https://www.google.com/", "https://www.google.com.br/", "https://www.bing.com/"},
		landings: []string{"/", "/blog/como-escolher-um-tenis", "/produtos/tenis-casual-couro", "/produtos/calca-jeans-slim"}},
	{name: "direct", share: 0.07, referrers: []string{""}, landings: []string{"/", "/", "/colecao/verao"}},
	{name: "email", share: 0.05, referrers: []string{"", "", "https://mail.google.com/"},
		landings: []string{"/colecao/verao", "/oferta", "/produtos/jaqueta-corta-vento"}, utm: emailUTM},
	{name: "whatsapp", share: 0.05, referrers: []string{""}, landings: []string{"/oferta", "/produtos/camiseta-basica"}, utm: whatsappUTM},
	{name: "instagram", share: 0.04, referrers: []string{"https://l.instagram.com/", "https://www.instagram.com/"},
		landings: []string{"/", "/colecao/verao", "/produtos/bone-aba-curva"}},
}

// returningChannels are the sources that bring customers back: the shop's e-mails and WhatsApp
// messages (whose UTM the order then carries).
var returningChannels = []channel{demoChannels[2], demoChannels[3]}

// paidLandings are the pages the ads link to.
var paidLandings = []string{"/oferta", "/produtos/tenis-casual-couro", "/produtos/camiseta-basica", "/colecao/verao"}

func emailUTM(r *rand.Rand) map[string]string {
	return map[string]string{"utm_source": "email", "utm_medium": "email",
		"utm_campaign": pick(r, []string{"newsletter-semanal", "lancamento-colecao-verao", "carrinho-abandonado", "cupom-aniversario"}),
		"utm_content":  pick(r, []string{"banner-topo", "botao-comprar", "produto-destaque", "link-rodape"})}
}

func whatsappUTM(r *rand.Rand) map[string]string {
	return map[string]string{"utm_source": "whatsapp", "utm_medium": pick(r, []string{"grupo-vip", "lista-transmissao", "atendimento"}),
		"utm_campaign": pick(r, []string{"ofertas-da-semana", "reposicao-de-estoque", "pos-venda"})}
}

// paidReferrer is the page an ad network's clicks come from: its own host.
func paidReferrer(utm map[string]string) string {
	return "https://" + strings.TrimSuffix(utm["utm_source"], "_ads") + ".example/"
}

// userAgent is a browser's User-Agent with how often the shop sees it (in percent).
type userAgent struct {
	weight int
	ua     string
}

// browsers are the shop's visitors' browsers: mostly phones, then desktops, a few tablets.
var browsers = []userAgent{
	{20, "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"},
	{22, "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36"},
	{12, "Mozilla/5.0 (Linux; Android 13; moto g54 5G) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Mobile Safari/537.36"},
	{7, "Mozilla/5.0 (Linux; Android 12; 2201117TG) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36"},
	{17, "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36"},
	{3, "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0"},
	{6, "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15"},
	{4, "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:127.0) Gecko/20100101 Firefox/127.0"},
	{1, "Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0"},
	{6, "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"},
	{2, "Mozilla/5.0 (Linux; Android 13; SM-X200) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36"},
}

// crawlers visit a few pages a day, without referrer or UTM, and never buy.
var crawlers = []string{
	"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
	"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
}

// browser draws a visitor's User-Agent by the shares of browsers.
func browser(r *rand.Rand) string {
	n := r.Intn(100)
	for _, b := range browsers {
		if n -= b.weight; n < 0 {
			return b.ua
		}
	}
	return browsers[0].ua
}

func pick[T any](r *rand.Rand, from []T) T {
	return from[r.Intn(len(from))]
}
