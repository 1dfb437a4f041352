package embedding

import (
	"context"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
)

// host is one Ollama server.
type host struct {
	name   string // base URL without credentials, for messages and logs
	client *api.Client

	// Guarded by pool.mu.
	inflight  int
	downUntil time.Time // skipped until then after a host failure
	lastUsed  uint64    // pool.seq when last handed out; spreads ties
}

// pool hands out hosts: batches wait for a host with fewer than
// queueDepth requests in flight (Ollama serves one request at a time; one
// more waiting in its queue means the runner never idles between batches
// while this client encodes and sends the next), queries take the least
// busy one at once. A host that failed is skipped for
// cooldown unless every remaining host is in the same state.
type pool struct {
	hosts    []*host
	cooldown time.Duration

	mu      sync.Mutex
	seq     uint64
	changed chan struct{} // closed and replaced whenever a host is released
}

// queueDepth is how many batches may be in flight to one host: one being
// embedded and one waiting at Ollama.
const queueDepth = 2

func newPool(hosts []*host, cooldown time.Duration) *pool {
	return &pool{hosts: hosts, cooldown: cooldown, changed: make(chan struct{})}
}

// acquire returns a host with room (fewer than queueDepth in flight) that
// is not in tried, waiting while all candidates are full. It returns ok=false when every host was tried, and
// ctx's error when ctx ends first.
func (p *pool) acquire(ctx context.Context, tried map[*host]bool) (h *host, ok bool, err error) {
	for {
		p.mu.Lock()
		h, wait := p.choose(tried, true)
		if h != nil {
			p.take(h)
			p.mu.Unlock()
			return h, true, nil
		}
		ch := p.changed
		p.mu.Unlock()
		if !wait {
			return nil, false, nil
		}
		select {
		case <-ctx.Done():
			return nil, false, ctx.Err()
		case <-ch:
		}
	}
}

// pick returns the least busy host not in tried without waiting, or
// ok=false when every host was tried.
func (p *pool) pick(tried map[*host]bool) (h *host, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	h, _ = p.choose(tried, false)
	if h == nil {
		return nil, false
	}
	p.take(h)
	return h, true
}

// choose picks among the untried hosts, preferring those not cooling down;
// with idleOnly it skips full hosts and says whether waiting may help.
// Ties go to the host used least recently. p.mu must be held.
func (p *pool) choose(tried map[*host]bool, idleOnly bool) (best *host, wait bool) {
	now := time.Now()
	var healthy, cooling []*host
	for _, h := range p.hosts {
		switch {
		case tried[h]:
		case now.Before(h.downUntil):
			cooling = append(cooling, h)
		default:
			healthy = append(healthy, h)
		}
	}
	set := healthy
	if len(set) == 0 {
		set = cooling
	}
	for _, h := range set {
		if idleOnly && h.inflight >= queueDepth {
			continue
		}
		if best == nil || h.inflight < best.inflight || (h.inflight == best.inflight && h.lastUsed < best.lastUsed) {
			best = h
		}
	}
	return best, best == nil && len(set) > 0
}

func (p *pool) take(h *host) {
	p.seq++
	h.inflight++
	h.lastUsed = p.seq
}

// release returns h to the pool. failed marks it down for the cooldown;
// a success clears an earlier mark.
func (p *pool) release(h *host, failed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	h.inflight--
	if failed {
		h.downUntil = time.Now().Add(p.cooldown)
	} else {
		h.downUntil = time.Time{}
	}
	close(p.changed)
	p.changed = make(chan struct{})
}

// markDown marks h down for the cooldown without it being in use.
func (p *pool) markDown(h *host) {
	p.mu.Lock()
	defer p.mu.Unlock()
	h.downUntil = time.Now().Add(p.cooldown)
}
