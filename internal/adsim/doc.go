// Package adsim simulates the APIs of the three ad networks mtk syncs from and writes to:
// alpha_ads (modelled on Meta's Marketing API), beta_ads (Google Ads, GAQL over REST) and
// gamma_ads (TikTok's Business API). It is a test peer, not part of the product: cmd/adsim serves
// it on loopback, and tests start it in process with httptest.NewServer(sim.Handler()).
//
// The world is generated from a seed: accounts with currencies and time zones, campaigns, ad sets
// and ads with budgets and status histories. Metrics accrue hour by hour on a daily curve in the
// account's time zone, only while an object and its ancestors are active, within daily and
// lifetime budgets, and are restated slightly once a day is over. All of it is integer arithmetic
// (minor units, counts) over (seed, object, time, status and budget history), so every breakdown
// sums exactly and Sim.Truth can tell a test the final numbers.
//
// The simulator's now comes from Config.Clock; tests move a *clock.Fake. Writes, quotas,
// injected faults and the conversions API log are reachable both as methods of *Sim and under
// /_admin/. README.md in this directory documents every endpoint for connector authors.
package adsim
