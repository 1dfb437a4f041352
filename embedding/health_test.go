package embedding_test

import (
	"strings"
	"testing"

	"github.com/hybrid-search/hybridsearch/embedding"
	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
)

// TestHostsHealth: each host's health is reported, so a dead one of two
// is visible while embedding goes on.
func TestHostsHealth(t *testing.T) {
	a, b, c := embeddingtest.NewServer(t), embeddingtest.NewServer(t), embeddingtest.NewServer(t)
	client := newOllama(t, nil, a, b, c)
	if _, err := client.Probe(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	b.Down()
	c.SetModels(embeddingtest.KnownModel("bge-m3")) // nomic-embed-text not pulled there

	got := client.HostsHealth(ctxT(t))
	if len(got) != 3 {
		t.Fatalf("HostsHealth() = %d hosts, want 3", len(got))
	}
	want := []struct {
		host    string
		ok      bool
		errText string
	}{
		{a.URL, true, ""},
		{b.URL, false, "unreachable"},
		{c.URL, false, "ollama pull nomic-embed-text"},
	}
	for i, w := range want {
		h := got[i]
		if h.Host != w.host || h.OK != w.ok || !strings.Contains(h.Error, w.errText) {
			t.Errorf("host %d = %+v, want %s ok=%v error containing %q", i, h, w.host, w.ok, w.errText)
		}
	}
	if _, err := client.EmbedDocuments(ctxT(t), []string{"still served by the live host"}); err != nil {
		t.Errorf("EmbedDocuments with one host of three alive = %v", err)
	}

	// Another model behind the same name on one host: its dimension differs.
	b.Up()
	other := embeddingtest.KnownModel("nomic-embed-text")
	other.Dim = 384
	b.SetModels(other)
	if h := client.HostsHealth(ctxT(t))[1]; h.OK || !strings.Contains(h.Error, "384 dimensions") {
		t.Errorf("host with another dimension = %+v, want not OK naming 384 dimensions", h)
	}
}

func TestHostsHealthHidesCredentials(t *testing.T) {
	a := embeddingtest.NewServer(t)
	a.Down()
	u := strings.Replace(a.URL, "http://", "http://user:secret@", 1)
	client := newOllama(t, func(o *embedding.OllamaOptions) { o.Hosts = []string{u} })
	h := client.HostsHealth(ctxT(t))[0]
	if h.OK || strings.Contains(h.Host+h.Error, "secret") {
		t.Errorf("HostsHealth() = %+v, want a failure without the credentials", h)
	}
}
