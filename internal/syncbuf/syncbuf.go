// Package syncbuf provides a text buffer that one goroutine may write while
// others read it, for collecting a child process's or a logger's output in
// tests.
package syncbuf

import (
	"strings"
	"sync"
)

// Buffer collects written bytes; safe for concurrent use.
type Buffer struct {
	mu sync.Mutex
	b  strings.Builder
}

// Write appends p.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
