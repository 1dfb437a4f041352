package main

import (
	"context"
	"fmt"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/handlers"
	"github.com/hybrid-search/hybridsearch/mcp"
	"github.com/hybrid-search/hybridsearch/tokens"
)

// proxyBase is the app's base URL through the AppAPI proxy.
func (c Config) proxyBase() string {
	return c.NextcloudURL + "/index.php/apps/app_api/proxy/" + c.AppID
}

// MCPURL is the MCP endpoint through the Nextcloud proxy, where clients
// sign in with an app password. It is also the audience of the bearer
// tokens: the one name of this app's MCP resource that does not depend on
// how (or whether) the app's own port is published.
func (c Config) MCPURL() string { return c.proxyBase() + "/mcp" }

// mcpDeps builds the token service (over the HS_TOKENS bucket) and the MCP
// endpoint over the engine in use (search, store, reporter) and
// Nextcloud, and sets m.Tokens. It needs the queue and an engine.
func (m *Main) mcpDeps(ctx context.Context) (*handlers.MCPDeps, error) {
	cfg := m.Config
	records, err := m.Queue.Tokens(ctx)
	if err != nil {
		return nil, fmt.Errorf("token store: %w", err)
	}
	m.Tokens, err = tokens.New(tokens.Options{
		Secret: cfg.AppSecret, Audience: cfg.MCPURL(), Issuer: cfg.proxyBase(), Store: records, Logger: m.Logger,
	})
	if err != nil {
		return nil, err
	}
	endpoint, err := mcp.NewHandler(mcp.Options{
		Search: current{m}, Chunks: current{m}, Access: m.Nextcloud, Status: mcpStatus{current{m}},
		NextcloudURL: cfg.NextcloudURL, AllowedOrigins: []string{cfg.NextcloudURL},
		Version: cfg.AppVersion, Logger: m.Logger,
	})
	if err != nil {
		return nil, err
	}
	return &handlers.MCPDeps{Handler: endpoint, Tokens: m.Tokens, NextcloudURL: cfg.NextcloudURL, HaRP: cfg.HaRPSharedKey != ""}, nil
}

// DirectMCPURL is the MCP endpoint on the app's own address, for bearer
// tokens ("" before Run).
func (m *Main) DirectMCPURL() string {
	if m.listener == nil || m.Config.HaRPSharedKey != "" {
		return ""
	}
	return "http://" + m.ListenAddr() + "/mcp"
}

// demoTokens issues a bearer token named "demo" for each user, for the
// demo's READY line.
func (m *Main) demoTokens(ctx context.Context, users ...hs.UserID) (map[hs.UserID]string, error) {
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

// mcpStatus adapts the engine's Reporter to nc_index_status.
type mcpStatus struct{ c current }

func (s mcpStatus) IndexStatus(ctx context.Context, user hs.UserID) (mcp.IndexStatus, error) {
	rep, err := s.c.report(ctx, user, false)
	if err != nil {
		return mcp.IndexStatus{}, err
	}
	f := rep.Files
	st := mcp.IndexStatus{
		Indexed: f.Indexed, Skipped: f.Skipped, Failed: f.Failed, Pending: f.Pending, Chunks: f.Chunks,
		QueuePending: rep.Queue.Pending, ETASeconds: rep.Queue.ETASeconds,
		Components: map[string]mcp.Health{}, ProblemsTotal: len(rep.Problems),
	}
	if rep.Scan != nil {
		st.Scanning, st.LastScan = rep.Scan.Running, rep.Scan.Finished
	}
	for name, c := range rep.Components {
		st.Components[name] = mcp.Health{OK: c.OK, Error: c.Error}
	}
	if rep.Queue.Error != "" {
		st.Components["queue"] = mcp.Health{Error: rep.Queue.Error}
	}
	for _, p := range rep.Problems {
		st.Problems = append(st.Problems, mcp.Problem{FileID: int64(p.FileID), Path: p.Path, Status: p.Status, Error: p.Error})
	}
	return st, nil
}
