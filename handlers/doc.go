// Package handlers serves the app's HTTP interface with Echo: the AppAPI
// lifecycle (/heartbeat, /init, /enabled), the JSON API under /api, the
// static frontend and, later, /mcp. It is the only package that imports
// Echo. Handlers are thin: they decode, authorize, call a small interface
// this package declares, and encode.
package handlers
