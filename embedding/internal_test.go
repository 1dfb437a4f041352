package embedding

import (
	"context"
	"math"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		name     string
		vec      []float32
		dim      int
		wantKind string
	}{
		{name: "scales to unit length", vec: []float32{3, 4}, dim: 2},
		{name: "any length when dim unknown", vec: []float32{1, 0, 0}},
		{name: "wrong dimension", vec: []float32{1, 0}, dim: 3, wantKind: hs.EINTERNAL},
		{name: "NaN", vec: []float32{1, float32(math.NaN())}, wantKind: hs.EINTERNAL},
		{name: "Inf", vec: []float32{float32(math.Inf(1)), 0}, wantKind: hs.EINTERNAL},
		{name: "zero", vec: []float32{0, 0}, wantKind: hs.EINTERNAL},
		{name: "empty", vec: nil, wantKind: hs.EINTERNAL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := normalize(tt.vec, tt.dim)
			if got := hs.ErrorKind(err); got != tt.wantKind {
				t.Fatalf("normalize() kind = %q (%v), want %q", got, err, tt.wantKind)
			}
			if err != nil {
				return
			}
			var sum float64
			for _, v := range tt.vec {
				sum += float64(v) * float64(v)
			}
			if math.Abs(sum-1) > 1e-6 {
				t.Errorf("squared norm = %v, want 1", sum)
			}
		})
	}
}

func TestPoolAcquireWaitsAndSkipsTried(t *testing.T) {
	a, b := &host{name: "a"}, &host{name: "b"}
	p := newPool([]*host{a, b}, time.Minute)
	ctx := context.Background()

	h1, ok, err := p.acquire(ctx, nil)
	if !ok || err != nil || h1 != a {
		t.Fatalf("first acquire = %v, %v, %v; want a", h1, ok, err)
	}
	h2, _, _ := p.acquire(ctx, nil)
	if h2 != b {
		t.Fatalf("second acquire = %v, want b (a is busy)", h2.name)
	}
	// Each host takes a second batch (one embedding, one queued at Ollama).
	if h3, _, _ := p.acquire(ctx, nil); h3 != a {
		t.Fatalf("third acquire = %v, want a (least recently used)", h3.name)
	}
	if h4, _, _ := p.acquire(ctx, nil); h4 != b {
		t.Fatalf("fourth acquire = %v, want b", h4.name)
	}
	// Both full: the fifth waits until one is released.
	got := make(chan *host)
	go func() {
		h, _, _ := p.acquire(ctx, nil)
		got <- h
	}()
	select {
	case h := <-got:
		t.Fatalf("acquire returned %s while both hosts were full", h.name)
	case <-time.After(20 * time.Millisecond):
	}
	p.release(b, false)
	if h := <-got; h != b {
		t.Fatalf("waiting acquire = %s, want b", h.name)
	}
	// Every host tried: no host, no wait.
	if h, ok, err := p.acquire(ctx, map[*host]bool{a: true, b: true}); ok || err != nil || h != nil {
		t.Errorf("acquire with all tried = %v, %v, %v; want nothing", h, ok, err)
	}
	// A cancelled wait returns the context error.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := p.acquire(cctx, map[*host]bool{a: true}); err == nil {
		t.Error("acquire with a cancelled context and a busy host: want an error")
	}
}

func TestPoolPrefersHealthyHosts(t *testing.T) {
	a, b := &host{name: "a"}, &host{name: "b"}
	p := newPool([]*host{a, b}, time.Minute)
	h, _ := p.pick(nil)
	p.release(h, true) // a failed: cooling down
	for range 3 {
		h, _ := p.pick(nil)
		if h != b {
			t.Fatalf("pick = %s, want b while a cools down", h.name)
		}
		p.release(h, false)
	}
	// With only cooling hosts left, they are still tried.
	if h, ok := p.pick(map[*host]bool{b: true}); !ok || h != a {
		t.Errorf("pick with b tried = %v, %v; want a", h, ok)
	}
}

func TestNumCtxParameter(t *testing.T) {
	tests := []struct {
		params string
		want   int
	}{
		{"", 0},
		{"num_ctx                        8192", 8192},
		{"stop                           \"<|endoftext|>\"\nnum_ctx                        2048\ntemperature                    0.7", 2048},
		{"num_ctx                        4096.0", 4096},
		{"num_ctx                        0.5", 0},
		{"num_ctx_extra                  10", 0},
	}
	for _, tt := range tests {
		if got := numCtxParameter(tt.params); got != tt.want {
			t.Errorf("numCtxParameter(%q) = %d, want %d", tt.params, got, tt.want)
		}
	}
}
