// Package oauth is the app's own OAuth 2.1 authorization server for its
// MCP endpoint, so that MCP clients that speak only the MCP authorization
// spec can sign in with nothing but Nextcloud's login.
//
// It implements RFC 8414 metadata, RFC 7591 dynamic client registration,
// client ID metadata documents (the MCP 2025-11-25 way; fetched with a
// client that refuses private addresses and redirects, and cached), the
// authorization code grant with PKCE S256 only, RFC 8707 resource
// indicators, refresh tokens that rotate on every use (replaying a spent
// one revokes the whole grant), and RFC 7009 revocation. Redirect URIs are
// https, loopback http (any port, RFC 8252) or private-use schemes in
// reverse-domain form, matched exactly.
//
// The package knows no HTTP framework: handlers/oauth.go parses requests,
// renders the consent page and calls Server. Who the user is comes from
// Nextcloud (the AppAPI proxy forwards the signed-in user); no password
// ever passes through here. Tokens are the app's per-user JWTs, issued by
// a Grants implementation (*tokens.Service), so they are listed and
// revoked with the others. Nothing an anonymous caller sends is stored: a
// registration is sealed into its client_id and an authorization request
// into its handle (seal.go), so no flood can fill a store. What signed-in
// users cause (the sign-ins they opened, codes, refresh tokens, the
// clients that signed someone in) lives in Records (NATS key-value buckets
// with TTLs), so any app process can finish what another started.
package oauth
