// Package natstest runs a real NATS server with JetStream inside a test,
// the way nats.go's own tests do, so queue code is tested against the
// server it will meet in production.
package natstest

import (
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// Run starts an in-process NATS server with JetStream, its store under
// t.TempDir(), listening on a random port of 127.0.0.1 so external clients
// could connect too. It fails the test if the server is not ready within
// ten seconds, and shuts the server down in t.Cleanup.
func Run(t testing.TB) *server.Server {
	t.Helper()
	opts := &server.Options{
		ServerName: "natstest",
		Host:       "127.0.0.1",
		Port:       -1,
		JetStream:  true,
		StoreDir:   t.TempDir(),
		NoLog:      true,
		NoSigs:     true,
	}
	s, err := server.NewServer(opts)
	if err != nil {
		t.Fatalf("natstest: new server: %v", err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		t.Fatalf("natstest: server not ready after 10s")
	}
	t.Cleanup(func() {
		s.Shutdown()
		s.WaitForShutdown()
	})
	return s
}

// Connect connects to s in-process and closes the connection in t.Cleanup
// (registered after Run's, so it runs before the server shuts down).
func Connect(t testing.TB, s *server.Server) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(s.ClientURL(), nats.InProcessServer(s))
	if err != nil {
		t.Fatalf("natstest: connect: %v", err)
	}
	t.Cleanup(nc.Close)
	return nc
}
