// Package exapp is what the app does as an AppAPI ExApp: the background
// initialization reported to Nextcloud through /init progress, and the
// registrations made on enable (top-menu page, its script, style and
// initial state, file webhooks) and removed on disable. It also reports
// the health of the app's components.
package exapp
