package oauth

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Limits of client ID metadata document fetches.
const (
	// MaxMetadataBytes bounds a client metadata document.
	MaxMetadataBytes = 5 << 10
	// DefaultFetchTimeout bounds one fetch, connection included.
	DefaultFetchTimeout = 5 * time.Second
	// DefaultMetadataCacheAge is how long a document without cache
	// headers is kept; MaxMetadataCacheAge caps what its max-age or
	// Expires asks for.
	DefaultMetadataCacheAge = 5 * time.Minute
	MaxMetadataCacheAge     = 24 * time.Hour
	// DefaultCacheEntries bounds the documents kept (each is a small
	// parsed client, under MaxMetadataBytes).
	DefaultCacheEntries = 256
	// maxFetches bounds the fetches in flight at once: an anonymous flood
	// of authorization requests naming many documents waits for them
	// rather than opening connections without end.
	maxFetches = 8
)

// Fetcher fetches client ID metadata documents: a client's client_id is
// an https URL whose document lists its name and redirect URIs. The URL
// comes from whoever calls /authorize, so the fetch must not become a way
// into the app's network: it goes only to public addresses (checked on
// the address actually dialled, so DNS rebinding does not help, and on an
// address written in the URL, where IPv6 forms that carry an IPv4 address
// are refused outright), follows no redirects, uses no proxy, reads at
// most MaxMetadataBytes and gives up after Timeout. Documents are kept as
// their cache headers allow (DefaultMetadataCacheAge without any, at most
// MaxMetadataCacheAge, never with no-store or no-cache), in a cache of
// CacheEntries, least recently used out first; failures are not kept, and
// concurrent requests for one document share one fetch. The zero Fetcher
// is ready to use.
type Fetcher struct {
	// AllowHosts lists host:port pairs (as in the URL; port 443 is
	// written out) that may resolve to private or loopback addresses: an
	// intranet's client documents, or tests.
	AllowHosts []string
	// RootCAs, if non-nil, replaces the system's roots.
	RootCAs *x509.CertPool
	// Timeout bounds one fetch; 0 means DefaultFetchTimeout.
	Timeout time.Duration
	// CacheEntries bounds the cache; 0 means DefaultCacheEntries.
	CacheEntries int
	// Now is the clock of the cache; nil means time.Now.
	Now func() time.Time

	once             sync.Once
	public, internal *http.Client
	slots            chan struct{}
	cache            *docCache
}

func (f *Fetcher) init() {
	f.once.Do(func() {
		f.public = f.newClient(checkPublicAddress)
		f.internal = f.newClient(nil)
		f.slots = make(chan struct{}, maxFetches)
		n := f.CacheEntries
		if n <= 0 {
			n = DefaultCacheEntries
		}
		now := f.Now
		if now == nil {
			now = time.Now
		}
		f.cache = newDocCache(n, now)
	})
}

func (f *Fetcher) newClient(control func(network, address string, c syscall.RawConn) error) *http.Client {
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = DefaultFetchTimeout
	}
	dialer := &net.Dialer{Timeout: timeout, Control: control}
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			Proxy:                  nil, // a proxy would dial for us, past the address check
			DialContext:            dialer.DialContext,
			TLSClientConfig:        &tls.Config{RootCAs: f.RootCAs, MinVersion: tls.VersionTLS12},
			TLSHandshakeTimeout:    timeout,
			ResponseHeaderTimeout:  timeout,
			MaxResponseHeaderBytes: 16 << 10,
			DisableCompression:     true,
			MaxIdleConns:           4,
			IdleConnTimeout:        30 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// blockedPrefixes are address ranges that are not the public internet:
// besides what netip classifies (loopback, private, link-local,
// multicast, unspecified), shared address space, benchmarking, reserved,
// NAT64 and 6to4 (which can reach private IPv4), documentation.
var blockedPrefixes = func() []netip.Prefix {
	var out []netip.Prefix
	for _, p := range []string{"0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24", "192.0.2.0/24", "198.18.0.0/15", "198.51.100.0/24",
		"203.0.113.0/24", "240.0.0.0/4", "64:ff9b::/96", "64:ff9b:1::/48", "2002::/16", "2001:db8::/32", "100::/64",
		// IPv4-compatible (deprecated), IPv4-mapped and IPv4-translated
		// forms, Teredo, and site-local (deprecated): all carry or reach
		// an address this check would judge in another form.
		"::/96", "::ffff:0:0/96", "::ffff:0:0:0/96", "2001::/32", "fec0::/10"} {
		out = append(out, netip.MustParsePrefix(p))
	}
	return out
}()

// publicAddress reports whether ip is on the public internet. An IPv6
// form of an IPv4 address is not: whoever writes one means to slip past
// a check of the plain form.
func publicAddress(ip netip.Addr) bool {
	if !ip.IsValid() || ip.Is4In6() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return false
	}
	for _, p := range blockedPrefixes {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// checkPublicAddress is a net.Dialer Control that refuses to connect
// anywhere but public addresses.
func checkPublicAddress(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("dial %s: not an IP address", address)
	}
	if !publicAddress(ip) {
		return fmt.Errorf("dial %s: not a public address", address)
	}
	return nil
}

// checkClientIDURL checks a URL client_id: https, a host, a path other
// than "/", no fragment, no user info, no dot segments.
func checkClientIDURL(id string) (*url.URL, error) {
	if len(id) > maxURILength {
		return nil, errorString("too long")
	}
	u, err := url.Parse(id)
	switch {
	case err != nil:
		return nil, errorString("not a URL")
	case u.Scheme != "https" || u.Host == "" || u.Opaque != "":
		return nil, errorString("not an https URL")
	case u.User != nil:
		return nil, errorString("user info is not allowed")
	case strings.Contains(id, "#"):
		return nil, errorString("a fragment is not allowed")
	case u.Path == "" || u.Path == "/":
		return nil, errorString("it needs a path")
	case slices.ContainsFunc(strings.Split(u.EscapedPath(), "/"), func(s string) bool { return s == "." || s == ".." }):
		return nil, errorString("dot segments are not allowed")
	}
	return u, nil
}

// Fetch returns the client described by the metadata document at id,
// from the cache when it may. Anything wrong with the URL, the fetch or
// the document gives an invalid_client *Error that says what.
func (f *Fetcher) Fetch(ctx context.Context, id string) (Client, error) {
	f.init()
	return f.cache.get(ctx, id, func() (Client, time.Duration, error) { return f.fetch(ctx, id) })
}

// fetch fetches and checks the document at id and says how long it may
// be kept (0: not at all).
func (f *Fetcher) fetch(ctx context.Context, id string) (Client, time.Duration, error) {
	bad := func(format string, args ...any) (Client, time.Duration, error) {
		return Client{}, 0, fail(ErrInvalidClient, "client metadata document %s: "+format, append([]any{truncate(id, 200)}, args...)...)
	}
	u, err := checkClientIDURL(id)
	if err != nil {
		return bad("%v", err)
	}
	client := f.public
	hostPort := u.Host
	if u.Port() == "" {
		hostPort = net.JoinHostPort(u.Hostname(), "443")
	}
	if slices.Contains(f.AllowHosts, hostPort) {
		client = f.internal
	} else if ip, err := netip.ParseAddr(strings.Trim(u.Hostname(), "[]")); err == nil && !publicAddress(ip) {
		return bad("cannot be fetched (its address is not public)")
	}
	select {
	case f.slots <- struct{}{}:
		defer func() { <-f.slots }()
	case <-ctx.Done():
		return bad("cannot be fetched now (%v)", ctx.Err())
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return bad("%v", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return bad("no answer within %s", client.Timeout)
		}
		return bad("cannot be fetched (%s)", fetchErrorReason(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return bad("answered HTTP %d", resp.StatusCode)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "application/json" && !strings.HasSuffix(mt, "+json") {
		return bad("is %q, not application/json", mt)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxMetadataBytes+1))
	if err != nil {
		return bad("cannot be read (%s)", fetchErrorReason(err))
	}
	if len(body) > MaxMetadataBytes {
		return bad("is larger than %d bytes", MaxMetadataBytes)
	}
	var md clientMetadata
	if err := json.Unmarshal(body, &md); err != nil {
		return bad("is not a JSON object")
	}
	if md.ClientID != id {
		return bad("names client_id %q, not its own URL", truncate(md.ClientID, 200))
	}
	c, err := checkMetadata(md, true)
	if err != nil {
		var oe *Error
		if errors.As(err, &oe) {
			return bad("%s", oe.Description)
		}
		return Client{}, 0, err
	}
	c.ID = id
	if c.Name == "" {
		c.Name = u.Hostname()
	}
	return c, cacheAge(resp.Header, f.cache.now()), nil
}

// fetchErrorReason is a short phrase for a failed fetch, without the URL.
func fetchErrorReason(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	msg := err.Error()
	if strings.Contains(msg, "not a public address") {
		return "its address is not public"
	}
	return truncate(msg, 200)
}
