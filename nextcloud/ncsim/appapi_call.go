package ncsim

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// exAppCall is one request from AppAPI to an ExApp
// (AppAPIService::requestToExApp and friends).
type exAppCall struct {
	method string
	route  string // "/enabled?enabled=1", "/webhook"; joined to the app's base URL
	// uid is the acting user sent in AUTHORIZATION-APP-API; "" for none.
	uid string
	// requestID is the Nextcloud request id for AA-REQUEST-ID; "" means the
	// call does not come from an HTTP request (occ, cron), sent as "CLI".
	requestID string
	// header holds extra headers (listener headers, forwarded browser
	// headers). AppAPI's auth headers override same-named entries.
	header http.Header
	host   string // Host header to send, if any
	body   io.Reader
	// contentLength is the body length when body is a stream of known
	// size (the proxy); 0 lets net/http decide.
	contentLength int64
	// timeout bounds the whole call; 0 means none.
	timeout time.Duration
	// harp marks a request HaRP forwards: HAProxy sets EX-APP-ID,
	// EX-APP-VERSION, AUTHORIZATION-APP-API and the literal AA-VERSION "32"
	// (haproxy.cfg.template) and adds nothing else.
	harp bool
}

// callExApp sends c to app with AppAPI's auth headers: AA-VERSION,
// EX-APP-ID, EX-APP-VERSION, AUTHORIZATION-APP-API = base64("uid:secret"),
// AA-REQUEST-ID, plus Accept-Language and Nextcloud's User-Agent when not
// already set. The caller closes the response body; cancel is called when
// it is done with the response.
func (s *Server) callExApp(ctx context.Context, app exAppRef, c exAppCall) (resp *http.Response, cancel context.CancelFunc, err error) {
	cancel = func() {}
	if c.timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
	}
	route := c.route
	if !strings.HasPrefix(route, "/") {
		route = "/" + route
	}
	req, err := http.NewRequestWithContext(ctx, c.method, app.baseURL+route, c.body)
	if err != nil {
		cancel()
		return nil, nil, fmt.Errorf("request to exapp %s: %w", app.id, err)
	}
	for k, vs := range c.header {
		req.Header[k] = append([]string(nil), vs...)
	}
	if c.host != "" {
		req.Host = c.host
	}
	if c.contentLength > 0 {
		req.ContentLength = c.contentLength
	}
	s.setAppAPIHeaders(req.Header, app, c.uid, c.requestID)
	if c.harp {
		req.Header.Set("AA-VERSION", "32")
		req.Header.Del("AA-REQUEST-ID")
	} else {
		if req.Header.Get("Accept-Language") == "" {
			req.Header.Set("Accept-Language", "en")
		}
		s.setUserAgent(req.Header)
	}
	resp, err = s.client.Do(req)
	if err != nil {
		cancel()
		return nil, nil, fmt.Errorf("request to exapp %s %s %s: %w", app.id, c.method, route, err)
	}
	return resp, cancel, nil
}

// setAppAPIHeaders follows AppAPICommonService::buildAppAPIAuthHeaders.
func (s *Server) setAppAPIHeaders(h http.Header, app exAppRef, uid, requestID string) {
	if requestID == "" {
		requestID = "CLI"
	}
	h.Set("AA-VERSION", s.AppAPIVersion)
	h.Set("EX-APP-ID", app.id)
	h.Set("EX-APP-VERSION", app.version)
	h.Set("AUTHORIZATION-APP-API", b64(uid+":"+app.secret))
	h.Set("AA-REQUEST-ID", requestID)
}

// setUserAgent adds the User-Agent Nextcloud's HTTP client sends.
func (s *Server) setUserAgent(h http.Header) {
	if h.Get("User-Agent") == "" {
		h.Set("User-Agent", "Nextcloud-Server-Crawler/"+s.ServerVersion)
	}
}

// requestID returns a Nextcloud-style request id (20 characters).
func requestID() string {
	id := randomToken(20)
	return strings.NewReplacer("+", "A", "/", "B").Replace(id)
}
