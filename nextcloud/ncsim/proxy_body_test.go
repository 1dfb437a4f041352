package ncsim

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// proxyAnswer is the deterministic answer of n bytes for request i.
func proxyAnswer(i, n int) []byte {
	b := make([]byte, n)
	for j := range b {
		b[j] = byte('a' + (i+j)%26)
	}
	return b
}

// postInPieces sends a POST over a raw connection in two TCP writes a
// moment apart, as a client on a real network may, and reads the answer.
func postInPieces(addr, path string, body []byte) (*http.Response, []byte, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, nil, err
	}
	defer c.Close()
	head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", path, addr, len(body))
	split := min(len(body), 1<<10)
	if _, err := c.Write(append([]byte(head), body[:split]...)); err != nil {
		return nil, nil, err
	}
	time.Sleep(time.Millisecond)
	for off := split; off < len(body); off += 512 {
		if _, err := c.Write(body[off:min(len(body), off+512)]); err != nil {
			return nil, nil, err
		}
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	return resp, got, err
}

// TestProxyLargeAnswersIntact sends 2,000 POSTs through the proxy whose
// answers are 4 to 64 KiB. Every answer must arrive whole. The proxy once
// streamed the request body to the ExApp while copying the answer back:
// when the app answered before the whole body had arrived, the first
// 4096-byte flush of the answer made net/http discard the rest of the
// request body under the upstream transport, which then failed the
// upstream connection, and the answer stopped 4096 bytes in with a clean
// chunked ending. PHP has the whole body before AppAPI runs, so the proxy
// now reads it first.
func TestProxyLargeAnswersIntact(t *testing.T) {
	s, ts := aaServer(t, func(s *Server) { s.Logf = nil })
	// Like many servers (uvicorn, for one), the app may answer once it has
	// what it needs, before it has read the whole request body.
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/heartbeat" {
			_, _ = io.WriteString(w, `{"status":"ok"}`)
			return
		}
		_ = http.NewResponseController(w).EnableFullDuplex()
		_, _ = io.ReadFull(r.Body, make([]byte, 16))
		i, _ := strconv.Atoi(r.URL.Query().Get("i"))
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write(proxyAnswer(i, n))
		_ = http.NewResponseController(w).Flush()
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	t.Cleanup(app.Close)
	f := &aaFakeApp{srv: app}
	aaRegister(t, s, f, Route{URL: `^/api/`, Verb: "POST", AccessLevel: AccessPublic})
	aaEnable(t, s, "hybrid_search")

	const total, workers = 2000, 8
	addr := strings.TrimPrefix(ts.URL, "http://")
	var (
		mu     sync.Mutex
		broken []string
		wg     sync.WaitGroup
	)
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				n := 4<<10 + (i*7919)%(60<<10+1)
				path := fmt.Sprintf("%shybrid_search/api/big?i=%d&n=%d", proxyPrefix, i, n)
				reqBody := bytes.Repeat([]byte("q"), 2<<10+(i*131)%(14<<10))
				resp, got, err := postInPieces(addr, path, reqBody)
				if err != nil || resp.StatusCode != 200 || !bytes.Equal(got, proxyAnswer(i, n)) {
					status := 0
					if resp != nil {
						status = resp.StatusCode
					}
					mu.Lock()
					broken = append(broken, fmt.Sprintf("#%d: status %d, %d of %d bytes, err %v", i, status, len(got), n, err))
					mu.Unlock()
				}
			}
		}()
	}
	for i := range total {
		next <- i
	}
	close(next)
	wg.Wait()
	if len(broken) > 0 {
		t.Errorf("%d of %d answers through the proxy were not intact, e.g. %v", len(broken), total, broken[:min(5, len(broken))])
	}
}
