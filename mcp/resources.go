package mcp

import (
	"context"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	hs "github.com/hybrid-search/hybridsearch"
)

// DocumentURIPrefix starts the URI of a document resource; the file id
// follows ("nextcloud://document/106"). resources/templates/list names the
// template, resources/list has no fixed resources.
const DocumentURIPrefix = "nextcloud://document/"

// addResources registers the document template: reading one gives the
// text nc_get_document gives without arguments (its first page, at most
// maxMaxChars characters), under the same access checks.
func (h *handler) addResources(srv *sdk.Server) {
	srv.AddResourceTemplate(&sdk.ResourceTemplate{
		Name:        "document",
		Title:       "Nextcloud document",
		Description: "The indexed text of one of the user's files or notes, by the file_id nc_semantic_search returns. Long texts are cut; nc_get_document pages through them.",
		MIMEType:    "text/plain",
		URITemplate: DocumentURIPrefix + "{file_id}",
	}, h.readDocument)
}

// readDocument answers resources/read for a document URI. A file the user
// cannot read, or that is not indexed, is "not found", as for a URI that
// names no file.
func (h *handler) readDocument(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	user, ok := hs.UserFromContext(ctx)
	if !ok || user == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "not signed in: no acting user"}
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(uri, DocumentURIPrefix), 10, 64)
	if !strings.HasPrefix(uri, DocumentURIPrefix) || err != nil || id <= 0 {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	_, text, err := h.document(ctx, user, documentInput{FileID: id, MaxChars: maxMaxChars})
	switch hs.ErrorKind(err) {
	case "":
	case hs.ENOTFOUND, hs.EINVALID:
		return nil, sdk.ResourceNotFoundError(uri)
	default:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: h.toolError(ctx, err, []any{"resource", uri, "user_id", string(user)}).Error()}
	}
	return &sdk.ReadResourceResult{
		Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: text}},
		// The text is the user's own: no shared cache may keep it.
		Cacheable: sdk.Cacheable{CacheScope: "private"},
	}, nil
}
