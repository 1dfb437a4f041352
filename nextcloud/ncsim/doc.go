// Package ncsim is an in-memory Nextcloud simulator, faithful to the parts of
// Nextcloud, AppAPI, HaRP, webhook_listeners, WebDAV, sharing and the Notes
// app that the Hybrid Search ExApp uses. It imitates one release at a time,
// Nextcloud 32 to 35 (Server.NextcloudVersion, version.go).
//
// Comments name the real code they follow, such as
// "ExAppProxyController::passesExAppProxyRoutesChecks" or
// "haproxy_agent.py _exapps_msg". Those are nextcloud/app_api at its v32 to
// v35 tags, nextcloud/HaRP at 185217eb and nextcloud/server files whose
// commits, with the versions each fact holds for and the test that pins it,
// are listed in docs/nextcloud-compatibility.md.
//
// Its zero value is ready to use as an http.Handler. Setup methods (AddUser,
// PutFile, Share, ...) panic on misuse, since misuse is a bug in the test.
// Routes the simulator does not know answer 501 and are recorded, so tests
// can fail on them (see Unhandled).
//
// It also serves pages imitating Nextcloud's web UI (login, Files,
// settings, ExApp top-menu pages, the Assistant) for the demo and the
// browser tests: the handlers here gather each page's data, and package
// shell holds their markup, stylesheet, icons and scripts.
package ncsim
