package capi

import "strings"

// usStates maps a US state's or territory's name, lowercase and letters only, to its
// two-letter ANSI/USPS code.
var usStates = map[string]string{
	"alabama": "al", "alaska": "ak", "arizona": "az", "arkansas": "ar", "california": "ca",
	"colorado": "co", "connecticut": "ct", "delaware": "de", "florida": "fl", "georgia": "ga",
	"hawaii": "hi", "idaho": "id", "illinois": "il", "indiana": "in", "iowa": "ia",
	"kansas": "ks", "kentucky": "ky", "louisiana": "la", "maine": "me", "maryland": "md",
	"massachusetts": "ma", "michigan": "mi", "minnesota": "mn", "mississippi": "ms",
	"missouri": "mo", "montana": "mt", "nebraska": "ne", "nevada": "nv", "newhampshire": "nh",
	"newjersey": "nj", "newmexico": "nm", "newyork": "ny", "northcarolina": "nc",
	"northdakota": "nd", "ohio": "oh", "oklahoma": "ok", "oregon": "or", "pennsylvania": "pa",
	"rhodeisland": "ri", "southcarolina": "sc", "southdakota": "sd", "tennessee": "tn",
	"texas": "tx", "utah": "ut", "vermont": "vt", "virginia": "va", "washington": "wa",
	"westvirginia": "wv", "wisconsin": "wi", "wyoming": "wy",
	"districtofcolumbia": "dc", "americansamoa": "as", "guam": "gu",
	"northernmarianaislands": "mp", "puertorico": "pr", "usvirginislands": "vi",
	"unitedstatesvirginislands": "vi",
}

// isoCountries holds the ISO 3166-1 alpha-2 codes in use (from the tz database's iso3166.tab).
var isoCountries = func() map[string]bool {
	const codes = `ad ae af ag ai al am ao aq ar as at au aw ax az ba bb bd be bf bg bh bi bj bl bm
bn bo bq br bs bt bv bw by bz ca cc cd cf cg ch ci ck cl cm cn co cr cu cv cw cx cy cz de dj dk dm
do dz ec ee eg eh er es et fi fj fk fm fo fr ga gb gd ge gf gg gh gi gl gm gn gp gq gr gs gt gu gw
gy hk hm hn hr ht hu id ie il im in io iq ir is it je jm jo jp ke kg kh ki km kn kp kr kw ky kz la
lb lc li lk lr ls lt lu lv ly ma mc md me mf mg mh mk ml mm mn mo mp mq mr ms mt mu mv mw mx my mz
na nc ne nf ng ni nl no np nr nu nz om pa pe pf pg ph pk pl pm pn pr ps pt pw py qa re ro rs ru rw
sa sb sc sd se sg sh si sj sk sl sm sn so sr ss st sv sx sy sz tc td tf tg th tj tk tl tm tn to tr
tt tv tw tz ua ug um us uy uz va vc ve vg vi vn vu wf ws ye yt za zm zw`
	m := map[string]bool{}
	for _, c := range strings.Fields(codes) {
		m[c] = true
	}
	return m
}()
