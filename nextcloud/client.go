package nextcloud

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud/appapi"
)

// DefaultTimeout bounds a request whose context has no deadline.
const DefaultTimeout = 60 * time.Second

// maxBody caps every XML or JSON response body the client reads.
const maxBody = 32 << 20

// Client calls Nextcloud as an AppAPI ExApp. Set its fields once before the
// first call; it is safe for concurrent use afterwards.
type Client struct {
	// BaseURL is NEXTCLOUD_URL. A trailing "/index.php" and "/" are
	// ignored, as nc_py_api does.
	BaseURL string
	// AppID, AppVersion and AAVersion are APP_ID, APP_VERSION and
	// AA_VERSION, sent on every request.
	AppID      string
	AppVersion string
	AAVersion  string
	// Secret is APP_SECRET. It is sent only inside AUTHORIZATION-APP-API
	// and never appears in errors or logs.
	Secret string
	// HTTPClient, if non-nil, sends the requests. It must not have a cookie
	// jar: AppAPI logins set session cookies that would then be replayed.
	// nil means a client with dial, TLS and header timeouts that drops the
	// AppAPI header on redirects to another host.
	HTTPClient *http.Client
	// Timeout bounds a request whose context has no deadline; 0 means
	// DefaultTimeout.
	Timeout time.Duration
	// Logger, if non-nil, receives one debug line per request.
	Logger *slog.Logger

	defaultOnce   sync.Once
	defaultClient *http.Client
}

// AuthHeaderValue returns the AUTHORIZATION-APP-API value for user and
// secret: base64("<user>:<secret>"). The empty user means no user.
func AuthHeaderValue(user hs.UserID, secret string) string {
	return appapi.EncodeAuth(string(user), secret)
}

// WithRequestID returns a copy of ctx whose requests to Nextcloud carry id
// as AA-REQUEST-ID, so Nextcloud's log can be matched with ours
// (hs.NewContextWithRequestID, which the handlers call).
func WithRequestID(ctx context.Context, id string) context.Context {
	return hs.NewContextWithRequestID(ctx, id)
}

// baseURL returns BaseURL without a trailing "/index.php" or "/".
func (c *Client) baseURL() string {
	u := strings.TrimRight(c.BaseURL, "/")
	u = strings.TrimSuffix(u, "/index.php")
	return strings.TrimRight(u, "/")
}

func (c *Client) httpClient() *http.Client {
	if c.HTTPClient != nil {
		return c.HTTPClient
	}
	c.defaultOnce.Do(func() {
		t := &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          100,
			MaxIdleConnsPerHost:   16,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: 2 * time.Minute,
			ExpectContinueTimeout: time.Second,
		}
		c.defaultClient = &http.Client{Transport: t, CheckRedirect: keepSecretOnHost}
	})
	return c.defaultClient
}

// keepSecretOnHost follows at most 10 redirects and never carries the
// AppAPI secret to another host.
func keepSecretOnHost(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if req.URL.Host != via[0].URL.Host {
		req.Header.Del("AUTHORIZATION-APP-API")
	}
	return nil
}

func (c *Client) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.Default()
}

// request is one call to Nextcloud.
type request struct {
	method string
	path   string // escaped, relative to the base URL, starting with "/"
	query  url.Values
	user   hs.UserID
	noAuth bool // send no AppAPI headers (status.php)
	header http.Header
	body   []byte
	ctype  string // Content-Type of body
}

// op names the request in errors: "GET /ocs/v2.php/...".
func (r *request) op() string { return r.method + " " + r.path }

// send performs r. The response is returned for every HTTP status; closing
// its body also releases the default timeout. Transport failures are
// EUNAVAILABLE.
func (c *Client) send(ctx context.Context, r *request) (*http.Response, error) {
	cancel := context.CancelFunc(func() {})
	if _, ok := ctx.Deadline(); !ok {
		d := c.Timeout
		if d <= 0 {
			d = DefaultTimeout
		}
		ctx, cancel = context.WithTimeout(ctx, d)
	}
	u := c.baseURL() + r.path
	if len(r.query) > 0 {
		u += "?" + r.query.Encode()
	}
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u, body)
	if err != nil {
		cancel()
		return nil, hs.Errorf(hs.EINVALID, "nextcloud: %s: bad request: %v", r.op(), redact(err.Error(), c.Secret))
	}
	for k, vs := range r.header {
		req.Header[k] = vs
	}
	if r.ctype != "" {
		req.Header.Set("Content-Type", r.ctype)
	}
	if !r.noAuth {
		req.Header.Set("EX-APP-ID", c.AppID)
		req.Header.Set("EX-APP-VERSION", c.AppVersion)
		if c.AAVersion != "" {
			req.Header.Set("AA-VERSION", c.AAVersion)
		}
		req.Header.Set("AUTHORIZATION-APP-API", AuthHeaderValue(r.user, c.Secret))
		req.Header.Set("OCS-APIRequest", "true")
		if id := hs.RequestIDFromContext(ctx); id != "" {
			req.Header.Set("AA-REQUEST-ID", id)
		}
	}
	start := time.Now()
	resp, err := c.httpClient().Do(req)
	if err != nil {
		cancel()
		c.logger().DebugContext(ctx, "Nextcloud request failed.", "method", r.method, "path", r.path,
			"user_id", string(r.user), "duration_ms", time.Since(start).Milliseconds())
		return nil, unavailable(r.op(), err, c.Secret)
	}
	c.logger().DebugContext(ctx, "Nextcloud request.", "method", r.method, "path", r.path,
		"user_id", string(r.user), "status", resp.StatusCode, "duration_ms", time.Since(start).Milliseconds())
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// cancelBody releases a request's timeout when the body is closed.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// unavailable wraps a transport error as EUNAVAILABLE. The user-facing
// message names the operation only; the cause keeps the details.
func unavailable(op string, err error, secret string) error {
	if secret != "" && strings.Contains(err.Error(), secret) {
		err = errors.New(redact(err.Error(), secret))
	}
	return hs.WrapError(hs.EUNAVAILABLE, err, "nextcloud: "+op+": unreachable")
}

func redact(s, secret string) string {
	if secret == "" {
		return s
	}
	return strings.ReplaceAll(s, secret, "[secret]")
}

// readAll reads at most maxBody bytes of body; more is ETOOLARGE.
func readAll(op string, body io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(body, maxBody+1))
	if err != nil {
		return nil, hs.WrapError(hs.EUNAVAILABLE, err, "nextcloud: "+op+": reading response")
	}
	if len(b) > maxBody {
		return nil, hs.Errorf(hs.ETOOLARGE, "nextcloud: %s: response larger than %d bytes", op, maxBody)
	}
	return b, nil
}

// call sends r and reads the whole body. Any status is returned.
func (c *Client) call(ctx context.Context, r *request) (int, http.Header, []byte, error) {
	resp, err := c.send(ctx, r)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := readAll(r.op(), resp.Body)
	if err != nil {
		return 0, nil, nil, err
	}
	return resp.StatusCode, resp.Header, b, nil
}

// requireUser rejects the empty user for calls that only make sense as one.
func requireUser(op string, user hs.UserID) error {
	if user == "" {
		return hs.Errorf(hs.EINVALID, "nextcloud: %s: a user is required", op)
	}
	return nil
}

func errorf(kind, format string, args ...any) error {
	return hs.Errorf(kind, "nextcloud: "+format, args...)
}
