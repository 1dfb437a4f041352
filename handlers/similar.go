package handlers

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	hs "github.com/hybrid-search/hybridsearch"
)

// Similarity finds the documents most like given files (*search.Similar).
type Similarity interface {
	Similar(ctx context.Context, user hs.UserID, ids []hs.FileID, topK int) (hs.SimilarResult, error)
}

// DefaultSimilarPage is the app page the "Find similar" action opens: the
// search panel's top-menu entry (exapp.MenuName).
const DefaultSimilarPage = "search"

// handleSimilar answers GET /api/similar?file_ids=12,34&top_k=10 (file_id
// and fileIds are accepted too, as the Files action's redirect names
// them): the documents most similar to those files, for the acting user.
func (s *Server) handleSimilar(c echo.Context) error {
	q := c.QueryParams()
	raw := q.Get("file_ids")
	for _, alt := range []string{"file_id", "fileIds"} {
		if raw == "" {
			raw = q.Get(alt)
		}
	}
	ids, err := parseFileIDs(raw)
	if err != nil {
		return err
	}
	topK := 0
	if v := q.Get("top_k"); v != "" {
		if topK, err = strconv.Atoi(v); err != nil {
			return hs.Errorf(hs.EINVALID, "top_k=%s is not a whole number", hs.Quote(v))
		}
	}
	if s.similar == nil {
		return hs.Errorf(hs.EUNAVAILABLE, "finding similar documents is not available")
	}
	res, err := s.similar.Similar(c.Request().Context(), actingUser(c), ids, topK)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

// parseFileIDs reads a comma-separated list of file ids.
func parseFileIDs(raw string) ([]hs.FileID, error) {
	if strings.TrimSpace(raw) == "" {
		return nil, hs.Errorf(hs.EINVALID, "file_ids is required: the ids of the files to find similar documents to")
	}
	var ids []hs.FileID
	for _, part := range strings.Split(raw, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(part), 10, 64)
		if err != nil || n <= 0 {
			return nil, hs.Errorf(hs.EINVALID, "file_ids: %s is not a file id", hs.Quote(part))
		}
		ids = append(ids, hs.FileID(n))
	}
	return ids, nil
}

// fileActionNode is the part of the node AppAPI's files plugin sends
// (buildNodeInfo) that the app reads. The payload's userId is the
// browser's claim; the acting user comes from AppAPI's authentication.
type fileActionNode struct {
	FileID json.Number `json:"fileId"`
}

// handleFileActionSimilar answers POST /api/files/similar, the handler of
// the Files app's "Find similar" action (AppAPI files-actions-menu v2:
// body {"files": [node, ...]}; a bare node, as version 1.0 sends, is
// accepted too). It answers {"redirect_handler": <page>}, and AppAPI's
// files plugin then opens /apps/app_api/embedded/<app>/<page>?fileIds=<ids>,
// where the panel asks GET /api/similar.
func (s *Server) handleFileActionSimilar(c echo.Context) error {
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return err
	}
	var v2 struct {
		Files []fileActionNode `json:"files"`
	}
	var one fileActionNode
	nodes := []fileActionNode{}
	if json.Unmarshal(body, &v2) == nil && len(v2.Files) > 0 {
		nodes = v2.Files
	} else if json.Unmarshal(body, &one) == nil && one.FileID != "" {
		nodes = append(nodes, one)
	}
	var parts []string
	for _, n := range nodes {
		parts = append(parts, n.FileID.String())
	}
	if _, err := parseFileIDs(strings.Join(parts, ",")); err != nil {
		return hs.Errorf(hs.EINVALID, "the file action sent no file ids: %v", hs.ErrorMessage(err))
	}
	page := s.simPage
	if page == "" {
		page = DefaultSimilarPage
	}
	return c.JSON(http.StatusOK, map[string]string{"redirect_handler": page})
}
