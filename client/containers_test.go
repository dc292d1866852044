package client_test

import (
	"context"
	"testing"

	"mtk/client"
	"mtk/platform"
)

func TestContainersAndTriggers(t *testing.T) {
	w := newWorld(t, platform.TierDefault)
	ctx := context.Background()
	c, _ := w.client(w.trackKey)
	ctr := w.tn.Container

	for _, ref := range []string{ctr.ID, *ctr.TrackingCode} {
		got, err := c.GetContainer(ctx, ref)
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != ctr.ID || got.Domain != "acme.example" || got.Status != "pending" || got.ProjectID != w.tn.Project.ID ||
			len(got.Metadata.AllowedHosts) != 1 || got.Metadata.LeadKey == "" {
			t.Fatalf("container by %s: %+v", ref, got)
		}
	}
	_, err := c.GetContainer(ctx, "ctr_unknown")
	wantAPIError(t, err, 404, client.ErrorTypeNotFound, client.CodeResourceNotFound)

	created, err := c.CreateTrigger(ctx, ctr.ID, client.NewAPITrigger("Checkout", "checkout", "InitiateCheckout"))
	if err != nil {
		t.Fatal(err)
	}
	if created.ID == "" || created.Config.Trigger.Type != client.TriggerTypeAPI || created.Config.Alpha.Name != "InitiateCheckout" ||
		created.ContainerID != ctr.ID {
		t.Fatalf("created %+v", created)
	}
	in := client.NewAPITrigger("Checkout v2", "checkout", "Purchase")
	updated, err := c.UpdateTrigger(ctx, ctr.ID, created.ID, in)
	if err != nil || updated.Name != "Checkout v2" || updated.Config.Alpha.Name != "Purchase" {
		t.Fatalf("updated %+v, %v", updated, err)
	}
	page, err := c.ListTriggers(ctx, ctr.ID, &client.TriggerListParams{Limit: 10, Type: client.TriggerTypeAPI})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Data) != 1 || page.Data[0].ID != created.ID || page.Pagination.Total != 1 || page.Pagination.Limit != 10 ||
		page.Pagination.Page != 1 || page.Pagination.TotalPages != 1 {
		t.Fatalf("page %+v", page)
	}
	if err := c.DeleteTrigger(ctx, ctr.ID, created.ID); err != nil {
		t.Fatal(err)
	}
	if page, err := c.ListTriggers(ctx, ctr.ID, nil); err != nil || page.Pagination.Total != 0 {
		t.Fatalf("after delete: %+v, %v", page, err)
	}

	err = c.DeleteTrigger(ctx, ctr.ID, created.ID)
	if e := wantAPIError(t, err, 404, client.ErrorTypeNotFound, client.CodeResourceNotFound); e.Message != "Trigger not found" {
		t.Fatalf("message %q", e.Message)
	}
	bad := client.NewAPITrigger("Clicks", "click", "Lead")
	bad.Config.Trigger.Type = "element_click"
	_, err = c.CreateTrigger(ctx, ctr.ID, bad)
	wantAPIError(t, err, 400, client.ErrorTypeValidation, client.CodeInvalidParameter)
	_, err = c.ListTriggers(ctx, ctr.ID, &client.TriggerListParams{Limit: 500})
	if e := wantAPIError(t, err, 400, client.ErrorTypeValidation, client.CodeInvalidParameter); len(e.Params()) != 1 || e.Params()[0] != "limit" {
		t.Fatalf("params %q of %q", e.Params(), e.Details)
	}
}
