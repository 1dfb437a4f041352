package embedding_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/hybrid-search/hybridsearch/embedding"
)

func TestQueryCacheLRU(t *testing.T) {
	c := embedding.NewQueryCache(2)
	c.Put("m", "a", []float32{1})
	c.Put("m", "b", []float32{2})
	c.Get("m", "a") // a is now the most recent
	c.Put("m", "c", []float32{3})
	tests := []struct {
		model, input string
		want         bool
	}{
		{"m", "a", true},
		{"m", "b", false}, // evicted
		{"m", "c", true},
		{"other", "a", false}, // keyed by model too
	}
	for _, tt := range tests {
		if _, got := c.Get(tt.model, tt.input); got != tt.want {
			t.Errorf("Get(%q, %q) found = %v, want %v", tt.model, tt.input, got, tt.want)
		}
	}
	if got := c.Len(); got != 2 {
		t.Errorf("Len() = %d, want 2", got)
	}
	c.Put("m", "a", []float32{9})
	if v, _ := c.Get("m", "a"); v[0] != 9 {
		t.Errorf("Get after overwrite = %v, want [9]", v)
	}
}

func TestQueryCacheCopies(t *testing.T) {
	c := embedding.NewQueryCache(0)
	v := []float32{1, 2}
	c.Put("m", "q", v)
	v[0] = 7
	got, _ := c.Get("m", "q")
	got[1] = 7
	if again, _ := c.Get("m", "q"); again[0] != 1 || again[1] != 2 {
		t.Errorf("cached vector = %v, want [1 2] untouched by callers", again)
	}
}

func TestQueryCacheConcurrent(t *testing.T) {
	c := embedding.NewQueryCache(64)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 200 {
				key := fmt.Sprint(i % 100)
				c.Put("m", key, []float32{float32(w)})
				c.Get("m", key)
			}
		})
	}
	wg.Wait()
	if got := c.Len(); got != 64 {
		t.Errorf("Len() = %d, want 64", got)
	}
}
