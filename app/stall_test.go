package app

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

// postWebhooks sends n webhook bodies made by body(i) to the app, as
// AppAPI delivers them, from 8 senders, and returns how long that took.
func postWebhooks(t *testing.T, env *testEnv, n int, body func(i int) string) time.Duration {
	t.Helper()
	auth := base64.StdEncoding.EncodeToString([]byte(":" + env.Main.Config.AppSecret))
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range 8 {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				req, _ := http.NewRequest(http.MethodPost, env.appURL()+"/webhook", strings.NewReader(body(i)))
				req.Header.Set("EX-APP-ID", "hybrid_search")
				req.Header.Set("EX-APP-VERSION", "0.1.0")
				req.Header.Set("AUTHORIZATION-APP-API", auth)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Errorf("webhook %d: %v", i, err)
					return
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("webhook %d = %d", i, resp.StatusCode)
					return
				}
			}
		})
	}
	wg.Wait()
	return time.Since(start)
}

// TestGhostUsersDoNotStallIndexing: 1,100 webhooks for users that do not
// exist in Nextcloud, then a real upload. With the production retry
// delays (5 s growing to an hour), the upload is indexed promptly: a job
// whose user does not exist fails at once, and nothing waits behind it.
func TestGhostUsersDoNotStallIndexing(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, envOptions{install: true, adjust: func(c *Config) { c.RetryBackoff = nil }})
	sent := postWebhooks(t, env, 1100, func(i int) string {
		return fmt.Sprintf(`{"event":{"class":"OCP\\Files\\Events\\Node\\NodeWrittenEvent","node":{"id":%d,"path":"/ghost%d/files/x.md"}},"user":{"uid":"ghost%d"},"time":%d}`,
			900000+i, i, i, time.Now().Unix())
	})
	t.Logf("1,100 webhooks for users that do not exist sent in %s", sent.Round(time.Millisecond))
	start := time.Now()
	f := env.Sim.PutFile("alice", "/after-the-flood.md", []byte("Uploaded after the flood: a capybara."))
	env.awaitFile(t, "the later upload indexed", f.ID, isIndexed(f.ETag))
	t.Logf("the later upload was indexed %s after it was written", time.Since(start).Round(time.Millisecond))
	await(t, "the queue to empty", 20*time.Second, func() bool {
		n, err := env.Main.Queue.Pending(t.Context())
		return err == nil && n == 0
	})
	if dead, _ := env.Main.Queue.DeadLetters(t.Context()); len(dead) != 0 {
		t.Errorf("%d dead letters, want none: a missing user is final, not retried", len(dead))
	}
}

// TestRetriesDoNotStallIndexing: Nextcloud fails every call as carol
// with 503 (a broken home storage, say), so 1,100 of her files wait out
// retries; alice's upload is indexed promptly all the same.
func TestRetriesDoNotStallIndexing(t *testing.T) {
	t.Parallel()
	var failed atomic.Int64
	var ncURL string
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if user, _ := appAPIUser(r); user == "carol" {
			failed.Add(1)
			http.Error(w, "storage unavailable", http.StatusServiceUnavailable)
			return
		}
		u, _ := url.Parse(ncURL)
		httputil.NewSingleHostReverseProxy(u).ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	env := newTestEnv(t, envOptions{install: true,
		setup:  func(sim *ncsim.Server) { sim.AddUser("carol", "Carol", false) },
		adjust: func(c *Config) { ncURL = c.NextcloudURL; c.NextcloudURL = front.URL; c.RetryBackoff = nil },
	})
	postWebhooks(t, env, 1100, func(i int) string {
		return fmt.Sprintf(`{"event":{"class":"OCP\\Files\\Events\\Node\\NodeWrittenEvent","node":{"id":%d,"path":"/carol/files/f%d.md"}},"user":{"uid":"carol"},"time":%d}`,
			800000+i, i, time.Now().Unix())
	})
	await(t, "carol's jobs to fail once", 60*time.Second, func() bool { return failed.Load() >= 1100 })
	start := time.Now()
	f := env.Sim.PutFile("alice", "/meanwhile.md", []byte("Written while carol's files wait: an okapi."))
	env.awaitFile(t, "alice's upload indexed", f.ID, isIndexed(f.ETag))
	t.Logf("alice's upload was indexed %s after it was written, with 1,100 of carol's jobs waiting to retry", time.Since(start).Round(time.Millisecond))
	// Pending reads the lanes one after another, so a job moving to its
	// next retry between two reads can be missed once: it must be seen
	// within a few reads, not at the first.
	var n int
	var err error
	for range 20 {
		if n, err = env.Main.Queue.Pending(t.Context()); err == nil && n >= 1100 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("Pending = %d, %v; want carol's 1,100 retries still queued (nothing lost)", n, err)
}

// TestOneUsersRetriesDoNotDelayAnothers: Nextcloud answers every call as
// carol with 503 after 20 ms (a storage that times out), so 1,100 of her
// files keep coming back on the retry lane; alice's upload fails with 503
// too at first, and is indexed when its retry is due, not behind carol's.
func TestOneUsersRetriesDoNotDelayAnothers(t *testing.T) {
	var failed, aliceFailed atomic.Int64 // aliceFailed: when her download first failed
	var ncURL string
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, _ := appAPIUser(r)
		switch {
		case user == "carol":
			failed.Add(1)
			time.Sleep(20 * time.Millisecond)
			http.Error(w, "storage unavailable", http.StatusServiceUnavailable)
			return
		case user == "alice" && r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/meanwhile.md"):
			// The download fails for half a second (the upload's every
			// event), so the file is indexed by a retry.
			aliceFailed.CompareAndSwap(0, time.Now().UnixNano())
			if time.Since(time.Unix(0, aliceFailed.Load())) < 500*time.Millisecond {
				http.Error(w, "storage unavailable", http.StatusServiceUnavailable)
				return
			}
		}
		u, _ := url.Parse(ncURL)
		httputil.NewSingleHostReverseProxy(u).ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	env := newTestEnv(t, envOptions{install: true,
		setup: func(sim *ncsim.Server) { sim.AddUser("carol", "Carol", false) },
		adjust: func(c *Config) {
			ncURL, c.NextcloudURL = c.NextcloudURL, front.URL
			c.RetryBackoff = []time.Duration{time.Second}
		},
	})
	postWebhooks(t, env, 1100, func(i int) string {
		return fmt.Sprintf(`{"event":{"class":"OCP\\Files\\Events\\Node\\NodeWrittenEvent","node":{"id":%d,"path":"/carol/files/f%d.md"}},"user":{"uid":"carol"},"time":%d}`,
			800000+i, i, time.Now().Unix())
	})
	// Two fresh workers fail her files at most 100 a second, the retry lane
	// at most 50 a second (one of her retries at a time, 20 ms each): by
	// 1,700 failures every fresh job has run, and only retries are left.
	await(t, "carol's jobs to fail once and retry", 90*time.Second, func() bool { return failed.Load() >= 1700 })
	start := time.Now()
	f := env.Sim.PutFile("alice", "/meanwhile.md", []byte("Written while carol's files retry: a pangolin."))
	env.awaitFile(t, "alice's upload indexed", f.ID, isIndexed(f.ETag))
	took := time.Since(start)
	t.Logf("alice's upload, refused at first, was indexed %s after it was written (retry due 1 s after the failure), with carol's 1,100 retrying", took.Round(time.Millisecond))
	if aliceFailed.Load() == 0 || took < time.Second {
		t.Fatalf("alice's download failed at %d, indexed after %s: not by a retry", aliceFailed.Load(), took)
	}
	if took > 8*time.Second {
		t.Errorf("alice's upload was indexed %s after it was written, want within 8 s: her retry waited behind carol's", took.Round(time.Millisecond))
	}
}

// appAPIUser returns the user of a request's AUTHORIZATION-APP-API header.
func appAPIUser(r *http.Request) (hs.UserID, bool) {
	raw, err := base64.StdEncoding.DecodeString(r.Header.Get("AUTHORIZATION-APP-API"))
	if err != nil {
		return "", false
	}
	user, _, ok := strings.Cut(string(raw), ":")
	return hs.UserID(user), ok
}

// TestMalformedWebhooksAreRefused sends what a forged or broken sender
// might (signed as AppAPI, so only the body is wrong): each gets 400 and
// queues nothing; a well-formed event still passes.
func TestMalformedWebhooksAreRefused(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, envOptions{install: true})
	const w = `OCP\\Files\\Events\\Node\\NodeWrittenEvent`
	node := func(id, path string) string {
		return `{"event":{"class":"` + w + `","node":{"id":` + id + `,"path":"` + path + `"}},"user":{"uid":"alice"},"time":1700000000}`
	}
	long := strings.Repeat("a", 251)
	bodies := map[string]string{
		"empty":                    ``,
		"not json":                 `hello`,
		"json array":               `[1,2]`,
		"json string":              `"event"`,
		"truncated":                `{"event":{"class":"` + w + `"`,
		"trailing data":            node("5", "/alice/files/a.md") + `{}`,
		"two objects":              node("5", "/alice/files/a.md") + node("6", "/alice/files/b.md"),
		"no event":                 `{"user":{"uid":"alice"}}`,
		"event not an object":      `{"event":"x"}`,
		"class not a string":       `{"event":{"class":7}}`,
		"empty class":              `{"event":{"class":""}}`,
		"share event":              `{"event":{"class":"OCP\\Share\\Events\\ShareCreatedEvent"}}`,
		"unknown node event":       `{"event":{"class":"OCP\\Files\\Events\\Node\\NodeFrobbedEvent","node":{"path":"/alice/files/x"}}}`,
		"node without path":        `{"event":{"class":"` + w + `","node":{"id":3}}}`,
		"node not an object":       `{"event":{"class":"` + w + `","node":"/alice/files/x"}}`,
		"id a string":              node(`"5"`, "/alice/files/a.md"),
		"id a fraction":            node("5.5", "/alice/files/a.md"),
		"id too large":             node("99999999999999999999999", "/alice/files/a.md"),
		"negative id":              node("-5", "/alice/files/a.md"),
		"relative path":            node("5", "alice/files/a.md"),
		"dot-dot segment":          node("5", "/alice/files/../bob/files/a.md"),
		"dot segment":              node("5", "/alice/files/./a.md"),
		"dot-dot user":             node("5", "/../files/a.md"),
		"dot user":                 node("5", "/./files/a.md"),
		"empty segment":            node("5", "/alice/files//a.md"),
		"NUL in path":              node("5", `/alice/files/a\u0000.md`),
		"newline in path":          node("5", `/alice/files/a\n.md`),
		"control char in path":     node("5", `/alice/files/a\u001b.md`),
		"NUL in user":              node("5", `/ali\u0000ce/files/a.md`),
		"lone surrogate":           node("5", `/alice/files/a\ud800.md`),
		"invalid UTF-8":            "{\"event\":{\"class\":\"" + w + "\",\"node\":{\"id\":5,\"path\":\"/alice/files/a\xff\xfe.md\"}},\"time\":1}",
		"name over 250 bytes":      node("5", "/alice/files/"+long+".md"),
		"path over 4096 bytes":     node("5", "/alice/files"+strings.Repeat("/"+strings.Repeat("d", 200), 21)+"/a.md"),
		"uid over 64 bytes":        node("5", "/"+strings.Repeat("u", 65)+"/files/a.md"),
		"user uid over 64 bytes":   `{"event":{"class":"` + w + `","node":{"id":5,"path":"/alice/files/a.md"}},"user":{"uid":"` + strings.Repeat("u", 65) + `"},"time":1}`,
		"user uid with a slash":    `{"event":{"class":"` + w + `","node":{"id":5,"path":"/alice/files/a.md"}},"user":{"uid":"al/ice"},"time":1}`,
		"negative time":            `{"event":{"class":"` + w + `","node":{"id":5,"path":"/alice/files/a.md"}},"user":{"uid":"alice"},"time":-1}`,
		"rename without source":    `{"event":{"class":"OCP\\Files\\Events\\Node\\NodeRenamedEvent","target":{"id":5,"path":"/alice/files/a.md"}}}`,
		"rename with a bad source": `{"event":{"class":"OCP\\Files\\Events\\Node\\NodeRenamedEvent","source":{"path":"/alice/files/../x"},"target":{"id":5,"path":"/alice/files/a.md"}}}`,
		"negative target id":       `{"event":{"class":"OCP\\Files\\Events\\Node\\NodeCopiedEvent","source":{"id":4,"path":"/alice/files/x"},"target":{"id":-5,"path":"/alice/files/a.md"}}}`,
	}
	auth := base64.StdEncoding.EncodeToString([]byte(":" + env.Main.Config.AppSecret))
	send := func(body string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, env.appURL()+"/webhook", strings.NewReader(body))
		req.Header.Set("EX-APP-ID", "hybrid_search")
		req.Header.Set("EX-APP-VERSION", "0.1.0")
		req.Header.Set("AUTHORIZATION-APP-API", auth)
		resp, b := doReq(t, req)
		return resp.StatusCode, b
	}
	await(t, "the initial scan's jobs to finish", 20*time.Second, func() bool {
		n, err := env.Main.Queue.Pending(t.Context())
		return err == nil && n == 0
	})
	for name, body := range bodies {
		if code, b := send(body); code != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", name, code, b)
		}
	}
	if n, err := env.Main.Queue.Pending(t.Context()); err != nil || n != 0 {
		t.Errorf("%d jobs queued from malformed bodies (%v), want none", n, err)
	}
	t.Logf("%d malformed bodies refused", len(bodies))
	for _, ok := range []string{
		node("5", "/alice/files/a b/ü 日本.md"),
		node("5", "/bob@example.org/files/it's fine.md"),
		node("5", "/alice/files/"+strings.Repeat("a", 250)),
		node("5", "/alice/files/Folder/"),
		node("0", "/appdata_oc1/preview/1.png"),
	} {
		if code, b := send(ok); code != http.StatusOK {
			t.Errorf("well-formed %s: %d %s, want 200", ok, code, b)
		}
	}
}
