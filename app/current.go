package app

import (
	"context"

	hs "github.com/hybrid-search/hybridsearch"
)

// current serves the handlers and the MCP endpoint from the engine in use
// at each call.
type current struct{ m *App }

func (c current) Search(ctx context.Context, user hs.UserID, req hs.SearchRequest) (hs.SearchResult, error) {
	e := c.m.engines.acquire()
	defer e.release()
	return e.Search.Search(ctx, user, req)
}

func (c current) Viz(ctx context.Context, user hs.UserID, req hs.SearchRequest, sample int) (hs.VizResult, error) {
	e := c.m.engines.acquire()
	defer e.release()
	return e.Viz.Viz(ctx, user, req, sample)
}

func (c current) Similar(ctx context.Context, user hs.UserID, ids []hs.FileID, topK int) (hs.SimilarResult, error) {
	e := c.m.engines.acquire()
	defer e.release()
	return e.Similar.Similar(ctx, user, ids, topK)
}

// SearchDefaults are the search defaults in force (the admin's), for the
// MCP search tool.
func (c current) SearchDefaults() hs.SearchDefaults {
	e := c.m.engines.acquire()
	defer e.release()
	return e.Search.Rules().Defaults
}

// FilePoints serves the MCP endpoint's nc_get_document.
func (c current) FilePoints(ctx context.Context, id hs.FileID, withVectors bool) ([]hs.Point, error) {
	e := c.m.engines.acquire()
	defer e.release()
	return e.Store.FilePoints(ctx, id, withVectors)
}

// Status serves GET /api/status and nc_index_status.
func (c current) Status(ctx context.Context, user hs.UserID, all bool) (hs.IndexStatus, error) {
	e := c.m.engines.acquireIndexing()
	defer e.release()
	return e.Reporter.Status(ctx, user, all)
}

// panelSettings is GET /api/settings: what the panel needs to know of the
// settings in force.
type panelSettings struct {
	Fusion   string     `json:"fusion"`  // the default fusion
	Weights  hs.Weights `json:"weights"` // the default weights
	Semantic bool       `json:"semantic"`
	Model    string     `json:"model,omitempty"`
	// Reindexing names the model of a new index that is being filled;
	// searches use the previous one until it has caught up.
	Reindexing string `json:"reindexing,omitempty"`
	// Problems are settings the admin entered that are not in force, for
	// admins only.
	Problems string `json:"problems,omitempty"`
	// Ask says whether asking your files (POST /api/ask) is on, and with
	// which chat model.
	Ask askSettings `json:"ask"`
}

// askSettings is panelSettings.Ask.
type askSettings struct {
	Enabled bool   `json:"enabled"`
	Model   string `json:"model,omitempty"`
}

// PanelSettings serves GET /api/settings.
func (c current) PanelSettings(ctx context.Context, user hs.UserID) (any, error) {
	e := c.m.engines.acquire()
	d := e.Search.Defaults()
	out := panelSettings{Fusion: d.Fusion, Weights: d.Weights, Semantic: e.Embedder != nil}
	if out.Semantic {
		out.Model = e.Config.EmbedModel
	}
	if next := c.m.engines.indexing(); next != e {
		out.Reindexing = "none (keyword and fuzzy only)"
		if next.Embedder != nil {
			out.Reindexing = next.Config.EmbedModel
		}
	}
	e.release()
	if c.m.Answer != nil {
		out.Ask.Model = c.m.Answer.ModelName()
		out.Ask.Enabled = out.Ask.Model != ""
	}
	if admin, err := c.m.Nextcloud.IsAdmin(ctx, user); err == nil && admin {
		if err := c.m.settings.check(ctx); err != nil {
			out.Problems = hs.ErrorMessage(err)
		}
	}
	return out, nil
}
