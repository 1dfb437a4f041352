// Package cli holds the hybridsearch commands that talk to the running app
// over its API, signed with the app's secret the way AppAPI signs requests
// (search, status, scan, retry, token), and install-json. Each command
// takes its arguments, the environment (getenv) and its output streams,
// and says what is wrong with its arguments in one line (ParseFlags,
// Usagef).
package cli
