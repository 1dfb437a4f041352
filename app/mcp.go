package app

import (
	"context"
	"fmt"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/handlers"
	"github.com/hybrid-search/hybridsearch/mcp"
	"github.com/hybrid-search/hybridsearch/nextcloud"
	"github.com/hybrid-search/hybridsearch/nextcloud/appapi"
	"github.com/hybrid-search/hybridsearch/oauth"
	"github.com/hybrid-search/hybridsearch/tokens"
)

// proxyBase is the app's base URL through the AppAPI proxy.
func (c Config) proxyBase() string {
	return appapi.ProxyURL(c.NextcloudURL, c.AppID)
}

// MCPURL is the MCP endpoint through the Nextcloud proxy, where clients
// sign in with an app password. It is also the audience of the bearer
// tokens: the one name of this app's MCP resource that does not depend on
// how (or whether) the app's own port is published.
func (c Config) MCPURL() string { return c.proxyBase() + "/mcp" }

// mcpDeps builds the token service (over the HS_TOKENS bucket) and the MCP
// endpoint over the engine in use (search, store, reporter) and
// Nextcloud, and sets m.Tokens. It needs the queue and an engine; rules
// are the search rules the tools describe.
func (m *App) mcpDeps(ctx context.Context, rules hs.SearchRules) (*handlers.MCPDeps, error) {
	cfg := m.Config
	records, err := m.KV.Tokens(ctx)
	if err != nil {
		return nil, fmt.Errorf("token store: %w", err)
	}
	m.Tokens, err = tokens.New(tokens.Options{
		Secret: cfg.AppSecret, Audience: cfg.MCPURL(), Issuer: cfg.proxyBase(), Store: records, Users: m.users, Logger: m.Logger,
	})
	if err != nil {
		return nil, err
	}
	endpoint, err := mcp.NewHandler(mcp.Options{
		Search: current{m}, Chunks: current{m}, Access: m.Nextcloud, Status: current{m},
		NextcloudURL: cfg.NextcloudURL, AllowedOrigins: []string{cfg.NextcloudURL},
		Version: Version, Rules: rules, Defaults: current{m}.SearchDefaults, Logger: m.Logger,
		ObserveTool: m.Metrics.MCPCall,
	})
	if err != nil {
		return nil, err
	}
	// Tokens are issued against a fresh list of users (one issuance is
	// rare); indexing may trust a list for a minute.
	users := &nextcloud.UserDirectory{Client: m.Nextcloud, MaxAge: nextcloud.DefaultUserListRecheck}
	auth, err := m.oauthServer(ctx)
	if err != nil {
		return nil, err
	}
	return &handlers.MCPDeps{Handler: endpoint, Tokens: m.Tokens, Users: users, NextcloudURL: cfg.NextcloudURL, OAuth: auth}, nil
}

// oauthBuckets are the OAuth server's NATS key-value buckets, whose
// entries expire with the records' lifetimes: Clients, Requests, Codes and
// Refresh in oauth.Options. Only signed-in users' sign-ins write to them.
var oauthBuckets = []struct {
	name, about string
	maxAge      time.Duration
	maxBytes    int64
}{
	{"HS_OAUTH_CLIENTS", "hybridsearch OAuth clients that signed someone in", oauth.ClientTTL, 64 << 20},
	{"HS_OAUTH_REQUESTS", "hybridsearch OAuth sign-ins a signed-in user opened", oauth.RequestTTL, 64 << 20},
	{"HS_OAUTH_CODES", "hybridsearch OAuth authorization codes (by hash)", 5 * oauth.CodeTTL, 64 << 20},
	{"HS_OAUTH_REFRESH", "hybridsearch OAuth refresh tokens (by hash)", oauth.RefreshTTL, 256 << 20},
}

// oauthServer builds the OAuth authorization server over oauthBuckets.
func (m *App) oauthServer(ctx context.Context) (*oauth.Server, error) {
	var recs [4]oauth.Records
	for i, b := range oauthBuckets {
		r, err := m.KV.Records(ctx, b.name, b.about, b.maxAge, b.maxBytes)
		if err != nil {
			return nil, fmt.Errorf("oauth store: %w", err)
		}
		recs[i] = r
	}
	// With pretty URLs (the official Docker image) Nextcloud writes the
	// proxy URL without /index.php, as the panel shows it; both are this
	// MCP endpoint.
	aliases := []string{appapi.PrettyProxyURL(m.Config.NextcloudURL, m.Config.AppID) + "/mcp"}
	if m.Config.HaRPSharedKey != "" { // behind HaRP, clients may also use its /exapps/ URL
		aliases = append(aliases, appapi.HaRPURL(m.Config.NextcloudURL, m.Config.AppID)+"/mcp")
	}
	return oauth.New(oauth.Options{
		Issuer: m.Config.proxyBase(), Resource: m.Config.MCPURL(), Aliases: aliases, Secret: []byte(m.Config.AppSecret), Grants: m.Tokens,
		Clients: recs[0], Requests: recs[1], Codes: recs[2], Refresh: recs[3],
		Fetcher: &oauth.Fetcher{AllowHosts: m.Config.ClientMetadataHosts},
		Logger:  m.Logger,
	})
}

// DirectMCPURL is the MCP endpoint on the app's own address, for bearer
// tokens ("" before Run).
func (m *App) DirectMCPURL() string {
	if m.http.listener == nil || m.Config.HaRPSharedKey != "" {
		return ""
	}
	return "http://" + m.ListenAddr() + "/mcp"
}

// DemoTokens issues a bearer token named "demo" for each user, for the
// demo's READY line.
func (m *App) DemoTokens(ctx context.Context, users ...hs.UserID) (map[hs.UserID]string, error) {
	out := make(map[hs.UserID]string, len(users))
	for _, u := range users {
		raw, _, err := m.Tokens.Issue(ctx, u, "demo", 0)
		if err != nil {
			return nil, fmt.Errorf("demo token for %s: %w", u, err)
		}
		out[u] = raw
	}
	return out, nil
}
