// Package webhook holds Nextcloud's side of file webhooks: the PHP event
// classes webhook_listeners sends (FileEvents), the node paths they carry
// ("/<uid>/files/<path>", SplitNodePath), and the strict parsing of a
// delivery into index jobs (Parse, Jobs). It has no HTTP client and
// imports only the standard library and the root package, so handlers may
// use it.
//
// The envelope is the one webhook_listeners sends (nextcloud-protocol.md
// §6.2, §6.3: event, user, time); the limits are Nextcloud's own (see
// Parse).
package webhook
