package oauth

import (
	"container/list"
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// docCache keeps fetched client metadata documents (parsed) for as long as
// they may be kept, at most size of them, least recently used out first.
// Concurrent gets of one id share one fetch.
type docCache struct {
	size int
	now  func() time.Time

	mu       sync.Mutex
	entries  map[string]*list.Element // of *cachedDoc
	order    *list.List               // front: most recently used
	inflight map[string]*docFetch
}

type cachedDoc struct {
	id      string
	client  Client
	expires time.Time
}

// docFetch is a fetch in flight; done closes when client and err are set.
type docFetch struct {
	done   chan struct{}
	client Client
	err    error
}

func newDocCache(size int, now func() time.Time) *docCache {
	return &docCache{size: size, now: now, entries: map[string]*list.Element{}, order: list.New(), inflight: map[string]*docFetch{}}
}

// get returns id's document: a kept one that has not expired, the result
// of a fetch already running for it, or what fetch returns (kept for the
// age it gives, when the fetch succeeds). A caller whose ctx ends stops
// waiting for another's fetch.
func (c *docCache) get(ctx context.Context, id string, fetch func() (Client, time.Duration, error)) (Client, error) {
	c.mu.Lock()
	if el, ok := c.entries[id]; ok {
		d := el.Value.(*cachedDoc)
		if c.now().Before(d.expires) {
			c.order.MoveToFront(el)
			c.mu.Unlock()
			return d.client, nil
		}
		c.order.Remove(el)
		delete(c.entries, id)
	}
	if f, ok := c.inflight[id]; ok {
		c.mu.Unlock()
		select {
		case <-f.done:
			return f.client, f.err
		case <-ctx.Done():
			return Client{}, fail(ErrInvalidClient, "client metadata document %s: cannot be fetched now (%v)", truncate(id, 200), ctx.Err())
		}
	}
	f := &docFetch{done: make(chan struct{})}
	c.inflight[id] = f
	c.mu.Unlock()

	client, age, err := fetch()
	c.mu.Lock()
	delete(c.inflight, id)
	if err == nil && age > 0 {
		c.entries[id] = c.order.PushFront(&cachedDoc{id: id, client: client, expires: c.now().Add(age)})
		for c.order.Len() > c.size {
			last := c.order.Back()
			c.order.Remove(last)
			delete(c.entries, last.Value.(*cachedDoc).id)
		}
	}
	c.mu.Unlock()
	f.client, f.err = client, err
	close(f.done)
	return client, err
}

// cacheAge is how long a response with header h may be kept (RFC 9111):
// 0 with no-store or no-cache, else max-age (or Expires against Date or
// now), DefaultMetadataCacheAge when it says nothing, never more than
// MaxMetadataCacheAge.
func cacheAge(h http.Header, now time.Time) time.Duration {
	age, said := time.Duration(0), false
	for _, d := range strings.Split(h.Get("Cache-Control"), ",") {
		name, value, _ := strings.Cut(strings.TrimSpace(d), "=")
		switch strings.ToLower(name) {
		case "no-store", "no-cache", "private":
			return 0
		case "max-age", "s-maxage":
			if n, err := strconv.ParseInt(strings.Trim(value, `"`), 10, 64); err == nil && !said {
				age, said = time.Duration(min(max(n, 0), int64(MaxMetadataCacheAge/time.Second)))*time.Second, true
			}
		}
	}
	if !said {
		if e := h.Get("Expires"); e != "" {
			exp, err := http.ParseTime(e)
			if err != nil {
				return 0 // an invalid Expires means already expired (RFC 9111 5.3)
			}
			base := now
			if d, err := http.ParseTime(h.Get("Date")); err == nil {
				base = d
			}
			age, said = exp.Sub(base), true
		} else {
			age = DefaultMetadataCacheAge
		}
	}
	return min(max(age, 0), MaxMetadataCacheAge)
}
