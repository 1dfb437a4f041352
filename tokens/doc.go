// Package tokens issues, lists, revokes and verifies the per-user bearer
// tokens that let an MCP client reach /mcp directly, without the Nextcloud
// proxy. A token is an HS256 JWT signed with a key derived from the app
// secret (HKDF-SHA256, never the raw secret); its audience is the app's MCP
// URL, its scope search:read, and its id (jti) names a record in a Store,
// so it can be revoked before it expires. The raw token is returned once,
// by Issue, and never stored or logged.
//
// The app's OAuth authorization server records each grant it gives a
// client with Grant, and signs that grant's short-lived access tokens with
// AccessToken: they carry the grant's record id in a "grant" claim, so the
// grant shows up in List and Revoke ends every token of it at once.
package tokens
