package qdrant

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	qc "github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
)

func TestQdrantConfig(t *testing.T) {
	tests := []struct {
		url  string
		host string
		port int
		tls  bool
	}{
		{"", "localhost", 6334, false},
		{"http://qdrant:6334", "qdrant", 6334, false},
		{"http://qdrant", "qdrant", 6334, false},
		{"https://q.example.com:443/", "q.example.com", 443, true},
		{"http://[::1]:7000", "::1", 7000, false},
	}
	for _, tt := range tests {
		cfg, err := qdrantConfig(Options{URL: tt.url, APIKey: "k"})
		if err != nil {
			t.Errorf("qdrantConfig(%q) = %v", tt.url, err)
			continue
		}
		if cfg.Host != tt.host || cfg.Port != tt.port || cfg.UseTLS != tt.tls || cfg.APIKey != "k" {
			t.Errorf("qdrantConfig(%q) = %s:%d tls %v key %q, want %s:%d tls %v", tt.url, cfg.Host, cfg.Port, cfg.UseTLS, cfg.APIKey, tt.host, tt.port, tt.tls)
		}
	}
}

func TestPointOfDeprecatedVectorFields(t *testing.T) {
	//nolint:staticcheck // servers before 1.14 answer with the deprecated fields
	vectors := &qc.VectorsOutput{VectorsOptions: &qc.VectorsOutput_Vectors{Vectors: &qc.NamedVectorsOutput{
		Vectors: map[string]*qc.VectorOutput{
			store.VectorDense:   {Data: []float32{0.6, 0.8}},
			store.VectorBM25:    {Data: []float32{2, 1}, Indices: &qc.SparseIndices{Data: []uint32{9, 3}}},
			store.VectorTrigram: {Vector: &qc.VectorOutput_Sparse{Sparse: &qc.SparseVector{Indices: []uint32{4}, Values: []float32{1}}}},
		},
	}}}
	payload := map[string]*qc.Value{
		"file_id": qc.NewValueDouble(12), // written through REST as a float
		"readers": stringList([]string{"alice"}),
	}
	p := pointOf(qc.NewID("u"), payload, vectors)
	if !slices.Equal(p.Dense, []float32{0.6, 0.8}) {
		t.Errorf("dense = %v", p.Dense)
	}
	if !slices.Equal(p.BM25.Indices, []uint32{3, 9}) || !slices.Equal(p.BM25.Values, []float32{1, 2}) {
		t.Errorf("bm25 = %v, want sorted {[3 9] [1 2]}", p.BM25)
	}
	if !slices.Equal(p.Trigram.Indices, []uint32{4}) {
		t.Errorf("trigram = %v", p.Trigram)
	}
	if p.File.ID != 12 || p.Chunk.FileID != 12 || !slices.Equal(p.File.Readers, []hs.UserID{"alice"}) {
		t.Errorf("file = %+v", p.File)
	}
}

func TestQdrantErrorMapping(t *testing.T) {
	live := context.Background()
	cancelled, cancel := context.WithCancel(live)
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		err  error
		want string
	}{
		{"unavailable", live, status.Error(codes.Unavailable, "down"), hs.EUNAVAILABLE},
		{"wrapped by the client", live, fmt.Errorf("Query() failed: %w", status.Error(codes.InvalidArgument, "Wrong input")), hs.EINVALID},
		{"rate limited", live, &qc.QdrantResourceExhaustedError{Reason: "slow down", RetryAfterS: 3}, hs.EUNAVAILABLE},
		{"timeout", live, status.Error(codes.DeadlineExceeded, "deadline"), hs.EUNAVAILABLE},
		{"aborted", live, status.Error(codes.Aborted, "conflict"), hs.EUNAVAILABLE},
		{"exists", live, status.Error(codes.AlreadyExists, "exists"), hs.ECONFLICT},
		{"not a status", live, errors.New("boom"), hs.EINTERNAL},
		{"caller gave up", cancelled, status.Error(codes.Canceled, "context canceled"), hs.EINTERNAL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := qdrantError(tt.ctx, "op", tt.err)
			if got := hs.ErrorKind(err); got != tt.want {
				t.Errorf("qdrantError(%v) kind = %q, want %q", tt.err, got, tt.want)
			}
			if tt.ctx.Err() != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("qdrantError(%v) = %v, want it to wrap context.Canceled", tt.err, err)
			}
		})
	}
}

// TestDocFreqOf: the count is recovered from a float32 score, as Qdrant
// computes it (idf in float32 times the stored value), up to millions of
// points.
func TestDocFreqOf(t *testing.T) {
	for _, total := range []int{1, 10, 1000, 100_000, 2_000_000} {
		for _, n := range []int{1, 2, 3, 17, total / 3, total / 2, total - 1, total} {
			if n < 1 || n > total {
				continue
			}
			for _, v := range []float32{0.05, 1, 1.7} {
				score := float32(store.IDF(n, total)) * v
				got := docFreqOf(score, hs.SparseVector{Indices: []uint32{4, 7}, Values: []float32{2, v}}, 7, total)
				if got != n {
					t.Errorf("docFreqOf(N %d, n %d, v %v) = %d", total, n, v, got)
				}
			}
		}
	}
	if got := docFreqOf(1, hs.SparseVector{Indices: []uint32{4}, Values: []float32{2}}, 7, 10); got != 1 {
		t.Errorf("docFreqOf without the index = %d, want 1 (a point holds it)", got)
	}
}
