package embeddingtest

import (
	"net"
	"sync"
)

// switchListener is a TCP listener that can stop listening (connections
// are refused, as with a stopped Ollama) and listen again on the same
// address, so the server's URL stays valid.
type switchListener struct {
	addr net.Addr

	mu       sync.Mutex
	cur      net.Listener  // nil while down
	upCh     chan struct{} // closed when listening again
	closed   bool
	closedCh chan struct{}
}

func newSwitchListener() (*switchListener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	return &switchListener{addr: ln.Addr(), cur: ln, upCh: make(chan struct{}), closedCh: make(chan struct{})}, nil
}

// Accept waits while the listener is down and returns net.ErrClosed once
// it is closed.
func (l *switchListener) Accept() (net.Conn, error) {
	for {
		l.mu.Lock()
		cur, upCh, closed := l.cur, l.upCh, l.closed
		l.mu.Unlock()
		if closed {
			return nil, net.ErrClosed
		}
		if cur == nil {
			select {
			case <-upCh:
			case <-l.closedCh:
			}
			continue
		}
		c, err := cur.Accept()
		if err == nil {
			return c, nil
		}
		l.mu.Lock()
		swapped, closed := l.cur != cur, l.closed
		l.mu.Unlock()
		if closed {
			return nil, net.ErrClosed
		}
		if !swapped {
			return nil, err
		}
	}
}

// down stops listening; connection attempts are refused.
func (l *switchListener) down() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cur == nil || l.closed {
		return
	}
	l.cur.Close()
	l.cur = nil
	l.upCh = make(chan struct{})
}

// up listens again on the same address.
func (l *switchListener) up() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cur != nil || l.closed {
		return nil
	}
	ln, err := net.Listen("tcp", l.addr.String())
	if err != nil {
		return err
	}
	l.cur = ln
	close(l.upCh)
	return nil
}

// Close stops listening for good.
func (l *switchListener) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	close(l.closedCh)
	if l.cur != nil {
		return l.cur.Close()
	}
	return nil
}

// Addr returns the address, the same whether up or down.
func (l *switchListener) Addr() net.Addr { return l.addr }
