package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"mtk/client"
)

// Spend and ROAS by campaign over a week, with money read exactly.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := client.New("https://mtk.example.com", client.WithAPIKey(os.Getenv("MTK_API_KEY")))

	res, err := c.Query(ctx, &client.QueryRequest{
		ProjectID: os.Getenv("MTK_PROJECT"),
		Fields:    []string{"spend", "roas"},
		Start:     "2026-03-01", End: "2026-03-07",
		Level: client.LevelCampaign,
		Order: []client.OrderBy{{Field: "roas", Desc: true}},
	})
	var apiErr *client.Error
	if errors.As(err, &apiErr) {
		log.Fatalf("%s (%s): %v", apiErr.Code, apiErr.RequestID, apiErr.Details)
	} else if err != nil {
		log.Fatal(err)
	}
	for _, row := range res.Data {
		spend, _ := row["spend"].Decimal()
		fmt.Printf("%s: %s %s, ROAS %s\n", row["campaign_name"], spend.StringFixed(2), res.Currency, row["roas"].Raw())
	}
}

// A server-side event; a retry after a lost answer is replayed, not stored twice.
func ExampleClient_TrackEvent() {
	c := client.New("https://mtk.example.com", client.WithAPIKey(os.Getenv("MTK_TRACKING_KEY")))
	res, err := c.TrackEvent(context.Background(), &client.Event{
		Config: client.EventConfig{Name: "Lead", Alpha: &client.AlphaEvent{Name: "Lead"}},
		Lead:   &client.Lead{Email: "ana@example.com"},
		UTM:    &client.UTM{Source: "alpha", Campaign: "Summer|120273269706449130"},
	}, client.WithIdempotencyKey("signup-4711"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.EventID, res.LeadID != nil)
}

// Revenue by utm_source, every order counted (the traffic view), and how a linear model would
// credit the campaigns over a 14-day window.
func ExampleClient_Query_attribution() {
	ctx := context.Background()
	c := client.New("https://mtk.example.com", client.WithAPIKey(os.Getenv("MTK_API_KEY")))

	bySource, err := c.Query(ctx, &client.QueryRequest{
		ProjectID: os.Getenv("MTK_PROJECT"), Fields: []string{"tx_revenue", "tx_count"}, Range: client.RangeLast30Days,
		Dimensions: []string{"utm_source"}, Revenue: client.RevenueNet,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(bySource.View, len(bySource.Data)) // traffic

	q := &client.QueryRequest{
		ProjectID: os.Getenv("MTK_PROJECT"), Fields: []string{"spend", "tx_revenue", "roas"}, Range: client.RangeLast30Days,
		Level:       client.LevelCampaign,
		Attribution: &client.Attribution{Model: client.ModelLinear, WindowDays: 14, Date: client.DateConversion},
	}
	ex, err := c.Explain(ctx, q)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ex.View, ex.Attribution.Model, ex.Attribution.Table) // e.g. ads linear credits_daily
}
