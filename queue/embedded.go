package queue

import (
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// EmbeddedOptions configure an in-process NATS server.
type EmbeddedOptions struct {
	// StoreDir is where JetStream keeps its files; required.
	StoreDir string
	// Listen, if non-empty ("127.0.0.1:4222", "127.0.0.1:-1"), also opens a
	// TCP port so external tools and workers can connect. Empty means
	// in-process connections only.
	Listen string
	// MaxStore caps JetStream file storage; 0 means 4 GiB.
	MaxStore int64
	// Logger receives the server's log lines; nil means slog.Default().
	Logger *slog.Logger
}

// RunEmbedded starts a NATS server with JetStream in this process and waits
// until it accepts connections. The caller shuts it down with Shutdown and
// WaitForShutdown, after closing its connections.
func RunEmbedded(o EmbeddedOptions) (*server.Server, error) {
	if o.StoreDir == "" {
		return nil, fmt.Errorf("queue: embedded nats: StoreDir is required")
	}
	if err := os.MkdirAll(o.StoreDir, 0o700); err != nil {
		return nil, fmt.Errorf("queue: embedded nats: %w", err)
	}
	if o.MaxStore == 0 {
		o.MaxStore = 4 << 30
	}
	opts := &server.Options{
		ServerName:         "hybridsearch",
		JetStream:          true,
		StoreDir:           o.StoreDir,
		JetStreamMaxStore:  o.MaxStore,
		JetStreamMaxMemory: 64 << 20,
		NoSigs:             true,
		DontListen:         o.Listen == "",
	}
	if o.Listen != "" {
		host, port, err := splitHostPort(o.Listen)
		if err != nil {
			return nil, fmt.Errorf("queue: embedded nats: listen %q: %w", o.Listen, err)
		}
		opts.Host, opts.Port = host, port
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("queue: embedded nats: %w", err)
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.Default()
	}
	ns.SetLoggerV2(natsLogger{logger.With("component", "nats")}, false, false, false)
	go ns.Start()
	if !ns.ReadyForConnections(30 * time.Second) {
		ns.Shutdown()
		return nil, fmt.Errorf("queue: embedded nats: not ready after 30s")
	}
	return ns, nil
}

// Connect connects to url, or in-process to embedded when it is non-nil.
// Reconnects forever with a short wait, so a restarted NATS is picked up.
func Connect(url string, embedded *server.Server, name string) (*nats.Conn, error) {
	opts := []nats.Option{nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(time.Second), nats.Timeout(10 * time.Second)}
	if embedded != nil {
		opts = append(opts, nats.InProcessServer(embedded))
		url = embedded.ClientURL()
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("queue: connect %s: %w", url, err)
	}
	return nc, nil
}

func splitHostPort(addr string) (string, int, error) {
	var host string
	var port int
	for i := len(addr) - 1; i >= 0; i-- {
		if addr[i] == ':' {
			host = addr[:i]
			if _, err := fmt.Sscanf(addr[i+1:], "%d", &port); err != nil {
				return "", 0, fmt.Errorf("bad port")
			}
			return host, port, nil
		}
	}
	return "", 0, fmt.Errorf("missing port")
}

// natsLogger adapts the server's logger interface to slog.
type natsLogger struct{ l *slog.Logger }

func (n natsLogger) Noticef(format string, v ...any) { n.l.Debug(fmt.Sprintf(format, v...)) }
func (n natsLogger) Warnf(format string, v ...any)   { n.l.Warn(fmt.Sprintf(format, v...)) }
func (n natsLogger) Fatalf(format string, v ...any)  { n.l.Error(fmt.Sprintf(format, v...)) }
func (n natsLogger) Errorf(format string, v ...any)  { n.l.Error(fmt.Sprintf(format, v...)) }
func (n natsLogger) Debugf(format string, v ...any)  { n.l.Debug(fmt.Sprintf(format, v...)) }
func (n natsLogger) Tracef(format string, v ...any)  {}
