// Package assistant offers the app in Nextcloud's Assistant: two Task
// Processing providers with task types of their own, "Search my files"
// (TaskSearch) and, when a chat model is configured, "Ask your files"
// (TaskAsk). AppAPI registers them (Sync, on enable and when the chat
// model comes or goes) and removes them (Remove, on disable).
//
// Nextcloud keeps the tasks; the app takes them one at a time through
// the server's task-provider API (tasks_provider/next), each lane only
// while it has a free slot, so a task is never claimed that cannot start
// at once. From Nextcloud 33 AppAPI calls POST /trigger?providerId=<id>
// when a task comes in while none of its type runs (Trigger): the lane
// then takes tasks until none is left. Nextcloud 32 has no trigger, so
// each lane also asks every Options.Poll, and every
// Options.PollTriggered once a trigger has been seen.
//
// A task runs as the user who scheduled it: its search is that user's,
// filtered and re-checked against Nextcloud like every search, and a task
// without a user is refused. The result is text the Assistant shows
// (titles, paths, excerpts and links; an answer with its sources) plus
// the files found as a ListOfFiles slot, whose ids the server checks
// exist. A failure is reported with a message for the admin's log and
// one for the user (shown from Nextcloud 33 on). Nothing in the server
// ends a running task, so every task taken is ended: on shutdown with a
// failure saying so.
package assistant
