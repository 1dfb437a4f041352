// Package mcp serves the app's Model Context Protocol endpoint: Streamable
// HTTP through the official Go SDK, stateless, with JSON responses (the
// AppAPI proxy buffers responses and keeps no session affinity), so one
// handler answers clients of the revisions 2024-11-05 to 2025-11-25
// (initialize, then requests) and of 2026-07-28 (every request on its own).
//
// It offers three read-only tools: nc_semantic_search (the search engine,
// with the parameter names of nextcloud-mcp-server's tool of the same
// name, checked by the app's search rules), nc_get_document (a document's
// indexed text, in pages) and nc_index_status; documents as resources
// (nextcloud://document/{file_id}); and one prompt, search_nextcloud. It
// answers only what it declares: logging, completion, resource
// subscriptions and unknown methods get JSON-RPC -32601 on every protocol
// version, and error texts quote at most 100 characters of a value. The
// acting user comes from the request context, where
// the handlers package puts it after AppAPI or bearer-token
// authentication; a request without one is refused. This is the only
// package that imports the MCP SDK, and the only place error kinds become
// MCP tool errors.
package mcp
