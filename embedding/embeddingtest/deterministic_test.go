package embeddingtest_test

import (
	"context"
	"math"
	"slices"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
)

func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestDeterministicSameTextSameVector(t *testing.T) {
	d := embeddingtest.Deterministic{}
	a, b := d.Vector("Kubernetes upgrade runbook"), d.Vector("Kubernetes upgrade runbook")
	if !slices.Equal(a, b) {
		t.Error("the same text gave two different vectors")
	}
	if len(a) != embeddingtest.DefaultDim {
		t.Errorf("len = %d, want %d", len(a), embeddingtest.DefaultDim)
	}
	other := embeddingtest.Deterministic{Dimensions: 64}.Vector("Kubernetes upgrade runbook")
	if len(other) != 64 {
		t.Errorf("len with Dimensions 64 = %d", len(other))
	}
}

func TestDeterministicUnitLength(t *testing.T) {
	d := embeddingtest.Deterministic{Dimensions: 32}
	for _, text := range []string{"a", "kubernetes upgrade runbook", "東京都の天気", "!!!", "", "the the the the"} {
		if n := math.Sqrt(cosine(d.Vector(text), d.Vector(text))); math.Abs(n-1) > 1e-5 {
			t.Errorf("|Vector(%q)| = %v, want 1", text, n)
		}
	}
}

func TestDeterministicSimilarity(t *testing.T) {
	d := embeddingtest.Deterministic{}
	tests := []struct {
		name            string
		text, near, far string
	}{
		{"shared word and stem", "kubernetes upgrade runbook", "upgrading kubernetes", "apple pie recipe"},
		{"case and punctuation", "Invoice 2024, March", "invoice 2024 march", "holiday photos beach"},
		{"CJK bigrams", "東京都の天気予報", "東京の天気", "大阪城の歴史"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := d.Vector(tt.text)
			near, far := cosine(v, d.Vector(tt.near)), cosine(v, d.Vector(tt.far))
			if near <= far+0.2 {
				t.Errorf("cos(%q, %q) = %.3f, not clearly above cos(%q, %q) = %.3f", tt.text, tt.near, near, tt.text, tt.far, far)
			}
		})
	}
}

func TestDeterministicStripsPrefixes(t *testing.T) {
	d := embeddingtest.Deterministic{}
	plain := d.Vector("kubernetes upgrade")
	for _, text := range []string{
		"search_document: kubernetes upgrade",
		"search_query: kubernetes upgrade",
		"passage: kubernetes upgrade",
		"query: kubernetes upgrade",
		"Represent this sentence for searching relevant passages: kubernetes upgrade",
		"title: none | text: kubernetes upgrade",
		"task: search result | query: kubernetes upgrade",
		"Instruct: Given a search query, retrieve relevant passages\nQuery: kubernetes upgrade",
	} {
		if !slices.Equal(d.Vector(text), plain) {
			t.Errorf("Vector(%q) differs from the unprefixed text", text)
		}
	}
}

func TestDeterministicEmbedderMethods(t *testing.T) {
	d := embeddingtest.Deterministic{Dimensions: 16, Name: "fake"}
	ctx := context.Background()
	if d.Model() != "fake" || (embeddingtest.Deterministic{}).Model() != "deterministic" {
		t.Errorf("Model() = %q", d.Model())
	}
	if n, err := d.Dim(ctx); n != 16 || err != nil {
		t.Errorf("Dim() = %d, %v", n, err)
	}
	if err := d.Health(ctx); err != nil {
		t.Errorf("Health() = %v", err)
	}
	docs, err := d.EmbedDocuments(ctx, []string{"one", "two"})
	if err != nil || len(docs) != 2 || !slices.Equal(docs[1], d.Vector("two")) {
		t.Errorf("EmbedDocuments() = %v, %v", docs, err)
	}
	q, err := d.EmbedQuery(ctx, "search_query: one")
	if err != nil || !slices.Equal(q, docs[0]) {
		t.Errorf("EmbedQuery() = %v, %v; want the document's vector", q, err)
	}
	if _, err := d.EmbedDocuments(ctx, []string{"x", ""}); hs.ErrorKind(err) != hs.EINVALID {
		t.Errorf("EmbedDocuments with an empty text: %v, want EINVALID", err)
	}
	if _, err := d.EmbedQuery(ctx, " "); hs.ErrorKind(err) != hs.EINVALID {
		t.Errorf("EmbedQuery(blank): %v, want EINVALID", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := d.EmbedDocuments(cctx, []string{"x"}); hs.ErrorKind(err) != hs.EUNAVAILABLE {
		t.Errorf("EmbedDocuments with a cancelled context: %v, want EUNAVAILABLE", err)
	}
}
