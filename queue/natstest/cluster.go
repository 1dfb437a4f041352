package natstest

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Cluster is a JetStream cluster of real NATS servers on loopback, each
// with its own store directory, joined by cluster routes. Nodes can be shut
// down and started again on the same ports and store, as when a machine of
// a production cluster restarts.
type Cluster struct {
	tb     testing.TB
	name   string
	dirs   []string
	client []int // client ports
	routes []int // cluster ports

	mu    sync.Mutex
	nodes []*server.Server // nil while a node is down
}

// RunCluster starts an n-node JetStream cluster (n ≥ 3 for replicated
// streams to survive the loss of a node) and waits until it has elected a
// meta leader. Every node is shut down in t.Cleanup.
func RunCluster(tb testing.TB, n int) *Cluster {
	tb.Helper()
	c := &Cluster{tb: tb, name: "hs-test", nodes: make([]*server.Server, n)}
	for i := 0; i < n; i++ {
		c.dirs = append(c.dirs, tb.TempDir())
		c.client = append(c.client, freePort(tb))
		c.routes = append(c.routes, freePort(tb))
	}
	tb.Cleanup(func() {
		for i := range c.nodes {
			c.Shutdown(i)
		}
	})
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = c.start(i) }()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			tb.Fatal(err)
		}
	}
	c.WaitLeader(60 * time.Second)
	return c
}

// URLs is every node's client URL, comma-separated, as NATS_URL takes them.
func (c *Cluster) URLs() string {
	var urls []string
	for _, p := range c.client {
		urls = append(urls, fmt.Sprintf("nats://127.0.0.1:%d", p))
	}
	return strings.Join(urls, ",")
}

// Node returns node i, or nil while it is down.
func (c *Cluster) Node(i int) *server.Server {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nodes[i]
}

// Index returns the index of the node whose client URL is url (as
// nats.Conn.ConnectedUrl reports it), or -1.
func (c *Cluster) Index(u string) int {
	pu, err := url.Parse(u)
	if err != nil {
		return -1
	}
	for i, p := range c.client {
		if pu.Port() == fmt.Sprint(p) {
			return i
		}
	}
	return -1
}

// Shutdown stops node i and waits until it is down; its store stays.
func (c *Cluster) Shutdown(i int) {
	c.mu.Lock()
	s := c.nodes[i]
	c.nodes[i] = nil
	c.mu.Unlock()
	if s != nil {
		s.Shutdown()
		s.WaitForShutdown()
	}
}

// Restart starts node i again on its ports and store directory.
func (c *Cluster) Restart(i int) {
	c.tb.Helper()
	if err := c.start(i); err != nil {
		c.tb.Fatal(err)
	}
}

// WaitLeader waits until a running node reports a JetStream meta leader
// and every running node is current with it.
func (c *Cluster) WaitLeader(timeout time.Duration) {
	c.tb.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		leader, current := false, true
		c.mu.Lock()
		for _, s := range c.nodes {
			if s == nil {
				continue
			}
			leader = leader || s.JetStreamIsLeader()
			current = current && s.JetStreamIsCurrent()
		}
		c.mu.Unlock()
		if leader && current {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.tb.Fatalf("natstest: no JetStream meta leader after %s", timeout)
}

func (c *Cluster) start(i int) error {
	var peers []string
	for j, p := range c.routes {
		if j != i {
			peers = append(peers, fmt.Sprintf("nats-route://127.0.0.1:%d", p))
		}
	}
	opts := &server.Options{
		ServerName: fmt.Sprintf("%s-%d", c.name, i),
		Host:       "127.0.0.1",
		Port:       c.client[i],
		JetStream:  true,
		StoreDir:   c.dirs[i],
		Cluster:    server.ClusterOpts{Name: c.name, Host: "127.0.0.1", Port: c.routes[i]},
		Routes:     server.RoutesFromStr(strings.Join(peers, ",")),
		NoLog:      true,
		NoSigs:     true,
	}
	s, err := server.NewServer(opts)
	if err != nil {
		return fmt.Errorf("natstest: node %d: %w", i, err)
	}
	go s.Start()
	if !s.ReadyForConnections(30 * time.Second) {
		s.Shutdown()
		return fmt.Errorf("natstest: node %d not ready after 30s", i)
	}
	c.mu.Lock()
	c.nodes[i] = s
	c.mu.Unlock()
	return nil
}

// freePort returns a TCP port of 127.0.0.1 that was free a moment ago.
func freePort(tb testing.TB) int {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("natstest: %v", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
