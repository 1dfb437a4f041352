package nextcloud_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud"
)

const (
	nodeWritten  = `OCP\Files\Events\Node\NodeWrittenEvent`
	nodeCreated  = `OCP\Files\Events\Node\NodeCreatedEvent`
	shareCreated = `OCP\Share\Events\ShareCreatedEvent`
)

func TestWebhooks(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	uri := "/api/webhook/" + uniqueKey("test")
	filter := map[string]any{"event.node.path": `/^\/[^\/]+\/files\//`}
	created, err := e.c.CreateWebhook(ctx, nextcloud.WebhookSpec{
		URI: uri, Event: `\` + nodeWritten, EventFilter: filter,
		Headers: map[string]string{"Content-Type": "application/json"},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.c.DeleteWebhook(context.Background(), created.ID) })
	want := nextcloud.Webhook{
		ID: created.ID, AppID: e.c.AppID, HTTPMethod: "POST", URI: uri, Event: nodeWritten,
		EventFilter: filter, Headers: map[string]string{"Content-Type": "application/json"}, AuthMethod: "none",
	}
	if created.ID == 0 || !reflect.DeepEqual(created, want) {
		t.Errorf("CreateWebhook =\n %+v, want\n %+v", created, want)
	}

	plain, err := e.c.CreateWebhook(ctx, nextcloud.WebhookSpec{URI: uri, Event: nodeCreated, UserIDFilter: string(e.user)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.c.DeleteWebhook(context.Background(), plain.ID) })
	if plain.EventFilter != nil || plain.Headers != nil || plain.UserIDFilter != string(e.user) || plain.UserID != "" {
		t.Errorf("webhook without filter = %+v, want nil filter and headers", plain)
	}

	got, err := e.c.ListWebhooks(ctx, uri)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !reflect.DeepEqual(got[0], created) || !reflect.DeepEqual(got[1], plain) {
		t.Errorf("ListWebhooks(%q) =\n %+v, want\n %+v %+v", uri, got, created, plain)
	}
	all, err := e.c.ListWebhooks(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 2 {
		t.Errorf("ListWebhooks(\"\") = %d webhooks, want at least 2", len(all))
	}
	one, err := e.c.GetWebhook(ctx, plain.ID)
	if err != nil || !reflect.DeepEqual(one, plain) {
		t.Errorf("GetWebhook = %+v, %v, want %+v", one, err, plain)
	}

	if err := e.c.DeleteWebhook(ctx, plain.ID); err != nil {
		t.Fatal(err)
	}
	err = e.c.DeleteWebhook(ctx, plain.ID)
	wantKind(t, "DeleteWebhook twice", err, hs.ENOTFOUND)
	if got, _ := e.c.ListWebhooks(ctx, uri); len(got) != 1 {
		t.Errorf("after delete: %d webhooks, want 1", len(got))
	}
}

func TestWebhookRejectsShareEvents(t *testing.T) {
	e := newEnv(t)
	_, err := e.c.CreateWebhook(context.Background(), nextcloud.WebhookSpec{URI: "/api/webhook", Event: shareCreated})
	wantKind(t, "ShareCreatedEvent", err, hs.EINVALID)
	_, err = e.c.CreateWebhook(context.Background(), nextcloud.WebhookSpec{URI: "/api/webhook", Event: nodeWritten, AuthMethod: "magic"})
	wantKind(t, "bad auth method", err, hs.EINVALID)
	_, err = e.c.CreateWebhook(context.Background(), nextcloud.WebhookSpec{Event: nodeWritten})
	wantKind(t, "no uri", err, hs.EINVALID)
}

func TestDeleteWebhooksByApp(t *testing.T) {
	e := newEnv(t)
	sim := e.needSim(t)
	ctx := context.Background()
	for _, ev := range []string{nodeWritten, nodeCreated} {
		if _, err := e.c.CreateWebhook(ctx, nextcloud.WebhookSpec{URI: "/api/webhook", Event: ev}); err != nil {
			t.Fatal(err)
		}
	}
	n, err := e.c.DeleteWebhooksByApp(ctx, testAppID)
	if err != nil || n != 2 {
		t.Errorf("DeleteWebhooksByApp = %d, %v, want 2", n, err)
	}
	if left := sim.Webhooks(); len(left) != 0 {
		t.Errorf("webhooks left: %+v", left)
	}
	n, err = e.c.DeleteWebhooksByApp(ctx, testAppID)
	if err != nil || n != 0 {
		t.Errorf("DeleteWebhooksByApp again = %d, %v, want 0", n, err)
	}
	_, err = e.c.DeleteWebhooksByApp(ctx, "")
	wantKind(t, "DeleteWebhooksByApp(\"\")", err, hs.EINVALID)
}

// TestWebhookListenersDisabled: with webhook_listeners disabled its API
// does not exist (OCS 998, HTTP 404 on v2, an XML body whatever Accept
// says). Listing, creating and deleting by app then fail with
// ErrWebhookListenersDisabled, whose text names the fix.
func TestWebhookListenersDisabled(t *testing.T) {
	e := newEnv(t)
	e.needSim(t).SetWebhookListenersEnabled(false)
	ctx := context.Background()
	_, errList := e.c.ListWebhooks(ctx, "")
	_, errCreate := e.c.CreateWebhook(ctx, nextcloud.WebhookSpec{URI: "/webhook", Event: nodeWritten})
	_, errDelete := e.c.DeleteWebhooksByApp(ctx, e.c.AppID)
	for name, err := range map[string]error{"list": errList, "create": errCreate, "delete by app": errDelete} {
		if !errors.Is(err, nextcloud.ErrWebhookListenersDisabled) || !strings.Contains(err.Error(), "occ app:enable webhook_listeners") {
			t.Errorf("%s: %v, want ErrWebhookListenersDisabled naming the fix", name, err)
		}
	}
	// A missing webhook is still just missing.
	e.needSim(t).SetWebhookListenersEnabled(true)
	if err := e.c.DeleteWebhook(ctx, 99999); errors.Is(err, nextcloud.ErrWebhookListenersDisabled) || hs.ErrorKind(err) != hs.ENOTFOUND {
		t.Errorf("delete of a missing webhook: %v", err)
	}
}
