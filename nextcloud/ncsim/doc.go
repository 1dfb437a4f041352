// Package ncsim is an in-memory Nextcloud simulator, faithful to the parts of
// Nextcloud, AppAPI, webhook_listeners, WebDAV, sharing and the Notes app
// that the Hybrid Search ExApp uses (see shared/design/nextcloud-protocol.md).
//
// Its zero value is ready to use as an http.Handler. Setup methods (AddUser,
// PutFile, Share, ...) panic on misuse, since misuse is a bug in the test.
// Routes the simulator does not know answer 501 and are recorded, so tests
// can fail on them (see Unhandled).
package ncsim
