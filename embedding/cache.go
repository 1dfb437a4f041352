package embedding

import (
	"container/list"
	"crypto/sha256"
	"sync"
)

// DefaultQueryCacheSize is the number of query vectors kept when
// OllamaOptions.QueryCacheSize is 0.
const DefaultQueryCacheSize = 4096

// QueryCache is an in-memory LRU of query embeddings keyed by the model and
// the SHA-256 of the exact input sent (prefix + query text), so the text
// itself is not kept. It is safe for concurrent use. Document vectors are
// not cached here: the indexer reuses them from the store by chunk hash.
type QueryCache struct {
	size int

	mu    sync.Mutex
	order *list.List // of *cacheEntry, most recent first
	items map[cacheKey]*list.Element
}

type cacheKey struct {
	model string
	sum   [sha256.Size]byte
}

type cacheEntry struct {
	key cacheKey
	vec []float32
}

// NewQueryCache returns a cache holding up to size vectors; size <= 0 means
// DefaultQueryCacheSize.
func NewQueryCache(size int) *QueryCache {
	if size <= 0 {
		size = DefaultQueryCacheSize
	}
	return &QueryCache{size: size, order: list.New(), items: make(map[cacheKey]*list.Element)}
}

// Get returns a copy of the vector cached for (model, input) and marks it
// recently used.
func (c *QueryCache) Get(model, input string) ([]float32, bool) {
	k := cacheKey{model, sha256.Sum256([]byte(input))}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[k]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return append([]float32(nil), el.Value.(*cacheEntry).vec...), true
}

// Put stores a copy of vec for (model, input), evicting the least recently
// used entry when the cache is full.
func (c *QueryCache) Put(model, input string, vec []float32) {
	k := cacheKey{model, sha256.Sum256([]byte(input))}
	v := append([]float32(nil), vec...)
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[k]; ok {
		el.Value.(*cacheEntry).vec = v
		c.order.MoveToFront(el)
		return
	}
	c.items[k] = c.order.PushFront(&cacheEntry{key: k, vec: v})
	for c.order.Len() > c.size {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*cacheEntry).key)
	}
}

// Len returns the number of cached vectors.
func (c *QueryCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
