package oauth

import (
	"context"
	"encoding/json"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	hs "github.com/hybrid-search/hybridsearch"
)

// Limits on client metadata.
const (
	MaxRedirectURIs     = 10
	MaxClientNameLength = 100 // runes
	maxURILength        = 2000
	// maxRedirectBytes bounds a registration's redirect URIs together:
	// they travel in its client_id.
	maxRedirectBytes = 2000
	// touchAfter is how old a client's record gets before a use rewrites
	// it (which restarts its ClientTTL).
	touchAfter = 24 * time.Hour
	// sealedPrefix starts a client_id that is a sealed registration;
	// earlier versions issued 22-character random ones, kept in Clients.
	sealedPrefix = "hs1."
)

// Client is a registered client: from dynamic registration (RFC 7591) or
// from a client ID metadata document (its ID is then the document's URL).
// Every client is public: token_endpoint_auth_method is "none". As JSON it
// is the registration response (RFC 7591 3.2.1).
type Client struct {
	ID              string   `json:"client_id"`
	Name            string   `json:"client_name"`
	RedirectURIs    []string `json:"redirect_uris"`
	GrantTypes      []string `json:"grant_types"`
	ResponseTypes   []string `json:"response_types"`
	AuthMethod      string   `json:"token_endpoint_auth_method"`
	Scope           string   `json:"scope,omitempty"`
	ClientURI       string   `json:"client_uri,omitempty"`
	SoftwareID      string   `json:"software_id,omitempty"`
	SoftwareVersion string   `json:"software_version,omitempty"`
	IssuedAt        int64    `json:"client_id_issued_at,omitempty"`
}

// sealedClient is what a registration's client_id carries: what the
// server needs of it later, once.
type sealedClient struct {
	Name     string   `json:"n,omitempty"`
	URIs     []string `json:"r"`
	IssuedAt int64    `json:"t"`
}

// usedClient is the record of a registration that signed someone in,
// under the hash of its client_id: it keeps the registration usable
// ClientTTL after its last use.
type usedClient struct {
	Used time.Time `json:"used"`
}

// storedClient is a registration of an earlier version, kept in Clients
// under its random client_id.
type storedClient struct {
	Client
	Touched time.Time `json:"touched,omitzero"`
}

// clientMetadata is what a registration request or a metadata document
// may say; unknown members are ignored (RFC 7591 2).
type clientMetadata struct {
	ClientID        string   `json:"client_id"`
	RedirectURIs    []string `json:"redirect_uris"`
	AuthMethod      string   `json:"token_endpoint_auth_method"`
	GrantTypes      []string `json:"grant_types"`
	ResponseTypes   []string `json:"response_types"`
	Name            string   `json:"client_name"`
	ClientURI       string   `json:"client_uri"`
	Scope           string   `json:"scope"`
	SoftwareID      string   `json:"software_id"`
	SoftwareVersion string   `json:"software_version"`
	ClientSecret    string   `json:"client_secret"`
}

// Register handles a dynamic client registration request (the JSON body)
// and returns the client, to be answered with 201. The registration is
// sealed into its client_id and stored nowhere: it is usable for
// UnconfirmedClientTTL, and ClientTTL after each successful token
// exchange or refresh from then on. Errors are invalid_redirect_uri or
// invalid_client_metadata (RFC 7591 3.2.2).
func (s *Server) Register(_ context.Context, body []byte) (Client, error) {
	var md clientMetadata
	if err := json.Unmarshal(body, &md); err != nil {
		return Client{}, fail(ErrInvalidClientMetadata, "the body is not a JSON client metadata object")
	}
	c, err := checkMetadata(md, false)
	if err != nil {
		return Client{}, err
	}
	n := 0
	for _, u := range c.RedirectURIs {
		n += len(u)
	}
	if n > maxRedirectBytes {
		return Client{}, fail(ErrInvalidRedirectURI, "the redirect URIs are longer than %d bytes together", maxRedirectBytes)
	}
	c.IssuedAt = s.now().Unix()
	sealed, err := s.seal.seal(purposeClient, sealedClient{Name: c.Name, URIs: c.RedirectURIs, IssuedAt: c.IssuedAt})
	if err != nil {
		return Client{}, err
	}
	c.ID = sealedPrefix + sealed
	s.log.Info("oauth client registered", "client_id", clientTag(c.ID), "client_name", c.Name, "redirect_uris", c.RedirectURIs)
	return c, nil
}

// client returns the client id names: a registration, or the client its
// metadata document describes. Unknown, malformed, expired or unreachable
// ones give invalid_client.
func (s *Server) client(ctx context.Context, id string) (Client, error) {
	switch {
	case id == "":
		return Client{}, fail(ErrInvalidRequest, "client_id is missing")
	case strings.HasPrefix(id, "https://"):
		if s.o.Fetcher == nil {
			return Client{}, fail(ErrInvalidClient, "client ID metadata documents are not supported here")
		}
		return s.o.Fetcher.Fetch(ctx, id)
	case strings.HasPrefix(id, sealedPrefix):
		return s.sealedClient(ctx, id)
	case len(id) > 64 || strings.ContainsFunc(id, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	}):
		return Client{}, fail(ErrInvalidClient, "unknown client")
	}
	var c storedClient
	_, err := getJSON(ctx, s.o.Clients, id, &c)
	if hs.ErrorKind(err) == hs.ENOTFOUND {
		return Client{}, fail(ErrInvalidClient, "unknown client; register it again")
	}
	return c.Client, err
}

// sealedClient opens a sealed registration and checks that it is still
// usable: within UnconfirmedClientTTL of its registration, or ClientTTL of
// its last use.
func (s *Server) sealedClient(ctx context.Context, id string) (Client, error) {
	var sc sealedClient
	if len(id) > 8<<10 || !s.seal.open(purposeClient, strings.TrimPrefix(id, sealedPrefix), &sc) {
		return Client{}, fail(ErrInvalidClient, "unknown client; register it again")
	}
	if now := s.now(); now.Sub(time.Unix(sc.IssuedAt, 0)) > UnconfirmedClientTTL {
		var u usedClient
		_, err := getJSON(ctx, s.o.Clients, hashKey(id), &u)
		switch {
		case hs.ErrorKind(err) == hs.ENOTFOUND:
			return Client{}, fail(ErrInvalidClient, "this registration was not used to sign in within %s, or not for %d days; register the client again",
				UnconfirmedClientTTL, int(ClientTTL.Hours()/24))
		case err != nil:
			return Client{}, err
		case now.Sub(u.Used) > ClientTTL:
			return Client{}, fail(ErrInvalidClient, "this registration was not used for %d days; register the client again", int(ClientTTL.Hours()/24))
		}
	}
	return Client{
		ID: id, Name: sc.Name, RedirectURIs: sc.URIs, GrantTypes: []string{"authorization_code", "refresh_token"},
		ResponseTypes: []string{"code"}, AuthMethod: "none", Scope: hs.TokenScope, IssuedAt: sc.IssuedAt,
	}, nil
}

// touch records a successful use of a registered client, at most once a
// day, so it stays usable ClientTTL from then. Failures only log.
func (s *Server) touch(ctx context.Context, id string) {
	now := s.now().UTC()
	switch {
	case strings.HasPrefix(id, "https://"):
		return
	case strings.HasPrefix(id, sealedPrefix):
		key := hashKey(id)
		var u usedClient
		rev, err := getJSON(ctx, s.o.Clients, key, &u)
		switch {
		case hs.ErrorKind(err) == hs.ENOTFOUND:
			_, err = createJSON(ctx, s.o.Clients, key, usedClient{Used: now})
		case err == nil && now.Sub(u.Used) >= touchAfter:
			_, err = updateJSON(ctx, s.o.Clients, key, usedClient{Used: now}, rev)
		}
		if err != nil && hs.ErrorKind(err) != hs.ECONFLICT {
			s.log.Warn("oauth client use not recorded", "client_id", clientTag(id), "error", err)
		}
		return
	}
	var c storedClient
	rev, err := getJSON(ctx, s.o.Clients, id, &c)
	if err != nil || now.Sub(c.Touched) < touchAfter {
		return
	}
	c.Touched = now
	if _, err := updateJSON(ctx, s.o.Clients, id, c, rev); err != nil && hs.ErrorKind(err) != hs.ECONFLICT {
		s.log.Warn("oauth client record not refreshed", "client_id", id, "error", err)
	}
}

// checkMetadata validates client metadata and returns the client it
// describes (without ID). fromDocument is set for metadata documents,
// which may not ask for a client secret at all.
func checkMetadata(md clientMetadata, fromDocument bool) (Client, error) {
	bad := func(format string, args ...any) (Client, error) {
		return Client{}, fail(ErrInvalidClientMetadata, format, args...)
	}
	if len(md.RedirectURIs) == 0 {
		return Client{}, fail(ErrInvalidRedirectURI, "redirect_uris is required")
	}
	if len(md.RedirectURIs) > MaxRedirectURIs {
		return Client{}, fail(ErrInvalidRedirectURI, "at most %d redirect_uris", MaxRedirectURIs)
	}
	for _, u := range md.RedirectURIs {
		if err := checkRedirectURI(u); err != nil {
			return Client{}, fail(ErrInvalidRedirectURI, "redirect URI %q: %s (%s)", truncate(u, 100), err.Error(), redirectRule)
		}
	}
	switch md.AuthMethod {
	case "", "none":
	case "client_secret_basic", "client_secret_post":
		if fromDocument {
			return bad("a client metadata document cannot use a client secret")
		}
		// Registered as a public client; the answer says so (RFC 7591 3.2.1).
	default:
		return bad("token_endpoint_auth_method %q is not supported; use none", md.AuthMethod)
	}
	if fromDocument && md.ClientSecret != "" {
		return bad("a client metadata document cannot carry a client secret")
	}
	grants := md.GrantTypes
	if len(grants) == 0 {
		grants = []string{"authorization_code"}
	}
	for _, g := range grants {
		if g != "authorization_code" && g != "refresh_token" {
			return bad("grant type %q is not supported (authorization_code and refresh_token are)", truncate(g, 50))
		}
	}
	responses := md.ResponseTypes
	if len(responses) == 0 {
		responses = []string{"code"}
	}
	for _, r := range responses {
		if r != "code" {
			return bad("response type %q is not supported (code is)", truncate(r, 50))
		}
	}
	name := strings.TrimSpace(md.Name)
	if !utf8.ValidString(name) || strings.ContainsFunc(name, hidden) || utf8.RuneCountInString(name) > MaxClientNameLength {
		return bad("client_name must be visible text of at most %d characters, without control, invisible or text-direction characters", MaxClientNameLength)
	}
	scope := ""
	if md.Scope != "" {
		sc, err := grantScope(md.Scope)
		if err != nil {
			return bad("scope: %s", err.(*Error).Description)
		}
		scope = sc
	}
	clientURI := ""
	if u, err := url.Parse(md.ClientURI); err == nil && (u.Scheme == "https" || u.Scheme == "http") && len(md.ClientURI) <= maxURILength {
		clientURI = md.ClientURI
	}
	return Client{
		Name: name, RedirectURIs: slices.Clone(md.RedirectURIs), GrantTypes: []string{"authorization_code", "refresh_token"},
		ResponseTypes: []string{"code"}, AuthMethod: "none", Scope: scope, ClientURI: clientURI,
		SoftwareID: truncate(md.SoftwareID, 200), SoftwareVersion: truncate(md.SoftwareVersion, 100),
	}, nil
}

// displayName is the client's name, or its redirect host when it gave none.
func (c Client) displayName() string {
	if c.Name != "" {
		return c.Name
	}
	if len(c.RedirectURIs) > 0 {
		if u, err := url.Parse(c.RedirectURIs[0]); err == nil && u.Host != "" {
			return "Unnamed client at " + u.Host
		}
	}
	return "Unnamed client"
}

// hidden reports whether r may not appear in a name a user reads: control
// and format characters (bidi embeddings and isolates U+202A–U+202E and
// U+2066–U+2069, zero-width characters, soft hyphen, tags), line and
// paragraph separators, private-use and unassigned code points.
func hidden(r rune) bool {
	return !unicode.IsGraphic(r) || unicode.Is(unicode.Cf, r)
}

// redirectRule says which redirect URIs register.
const redirectRule = "a redirect URI is https, http on a loopback address (127.0.0.1, [::1] or localhost) with any port, " +
	"or a private-use scheme in reverse-domain form such as com.example.app:/callback"

// nativeSchemes are private-use schemes of widely used MCP clients that
// are not in reverse-domain form: Cursor registers
// cursor://anysphere.cursor-mcp/oauth/callback (Cursor's MCP docs).
var nativeSchemes = []string{"cursor"}

// checkRedirectURI accepts https URLs, http URLs on a loopback host (RFC
// 8252 7.3, any port), and private-use schemes of native apps in
// reverse-domain form (RFC 8252 7.1, "com.example.app:/cb") or of
// nativeSchemes; never a fragment or user info. Any other scheme is
// refused: the consent page would send the browser there, and schemes such
// as ms-msdt:, search-ms:, smb:// or another browser's hand it to an
// operating-system handler.
func checkRedirectURI(raw string) error {
	if len(raw) > maxURILength {
		return errorString("too long")
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Scheme == "" || !utf8.ValidString(raw) || strings.ContainsFunc(raw, unicode.IsSpace):
		return errorString("not an absolute URI")
	case strings.Contains(raw, "#"):
		return errorString("a redirect URI cannot have a fragment")
	case u.User != nil:
		return errorString("a redirect URI cannot have user info")
	}
	switch scheme := strings.ToLower(u.Scheme); {
	case scheme == "https":
		if u.Host == "" {
			return errorString("no host")
		}
	case scheme == "http":
		if !isLoopbackHost(u.Hostname()) {
			return errorString("http is only allowed for loopback addresses; use https")
		}
	case reverseDomain(scheme) || slices.Contains(nativeSchemes, scheme):
		if u.Opaque != "" || u.Host == "" && u.Path == "" {
			return errorString("not a usable URI (write it as " + scheme + ":/path)")
		}
	default:
		return errorString("scheme " + u.Scheme + " is not allowed")
	}
	return nil
}

// reverseDomain reports whether a URI scheme is a domain name in reverse
// order (com.example.app): two or more dot-separated labels.
func reverseDomain(scheme string) bool {
	labels := strings.Split(scheme, ".")
	return len(labels) >= 2 && !slices.Contains(labels, "")
}

// isLoopbackHost reports whether host is localhost or a loopback IP.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// matchRedirectURI reports whether requested equals one of registered,
// exactly; for http loopback URIs the port may differ (RFC 8252 7.3), but
// nothing else.
func matchRedirectURI(registered []string, requested string) bool {
	if requested == "" || checkRedirectURI(requested) != nil {
		return false
	}
	if slices.Contains(registered, requested) {
		return true
	}
	q, err := url.Parse(requested)
	if err != nil || q.Scheme != "http" || !isLoopbackHost(q.Hostname()) {
		return false
	}
	for _, r := range registered {
		u, err := url.Parse(r)
		if err == nil && u.Scheme == "http" && u.Hostname() == q.Hostname() && u.EscapedPath() == q.EscapedPath() &&
			u.RawQuery == q.RawQuery && u.ForceQuery == q.ForceQuery {
			return true
		}
	}
	return false
}

// grantScope returns the scope to grant for a requested one: search:read,
// the only scope, whatever else is asked for (RFC 6749 3.3 lets the
// server ignore scopes), unless nothing asked for is known.
func grantScope(requested string) (string, error) {
	fields := strings.Fields(requested)
	if len(fields) == 0 || slices.Contains(fields, hs.TokenScope) {
		return hs.TokenScope, nil
	}
	return "", fail(ErrInvalidScope, "the only scope is %s", hs.TokenScope)
}

type errorString string

func (e errorString) Error() string { return string(e) }

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
