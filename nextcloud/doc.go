// Package nextcloud is the Hybrid Search ExApp's only door to Nextcloud.
//
// It is the one place that knows AppAPI's authentication headers, the URL
// shapes of OCS, WebDAV, webhook_listeners, the Notes API and the sharing
// API, and how Nextcloud reports errors. Failures come back as root error
// kinds (hybridsearch.ENOTFOUND, EUNAUTHORIZED, EUNAVAILABLE, ...), so
// callers never look at HTTP statuses.
//
// Every method takes a context first and, where data is per user, the
// acting user explicitly; the empty user means "the app itself", which is
// how AppAPI lifecycle, UI and webhook calls are made.
package nextcloud
