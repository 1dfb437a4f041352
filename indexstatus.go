package hybridsearch

import "time"

// IndexStatus is the state of the index as one user (or an admin, for
// every user) sees it: the body of GET /api/status, the result of the
// nc_index_status MCP tool and what "hybridsearch status" prints. The JSON
// names are read by the panel and the CLI.
type IndexStatus struct {
	Version string     `json:"version"`
	User    UserID     `json:"user"`
	Files   FileCounts `json:"files"`
	// Problems are failed, skipped, retrying and partial files, newest
	// first; at most a capped number are listed, ProblemsTotal counts all.
	Problems      []Problem             `json:"problems"`
	ProblemsTotal int                   `json:"problems_total"`
	PerUser       map[string]FileCounts `json:"per_user,omitempty"` // every user's counts, for admins asking for all
	// Progress is (indexed + skipped + failed) / all files, in [0, 1]; 1
	// when there are none.
	Progress float64 `json:"progress"`
	// Healthy is set when every component is OK and the queue answers.
	Healthy    bool                       `json:"healthy"`
	Queue      QueueStatus                `json:"queue"`
	Scan       *ScanProgress              `json:"scan,omitempty"`
	Counters   *Counters                  `json:"counters,omitempty"`
	Components map[string]ComponentStatus `json:"components"`
	// Embedders lists each embedding host's health, for admins.
	Embedders []HostHealth `json:"embedders,omitempty"`
	// Live is whether file changes arrive as webhooks, and how late; nil
	// until the app knows.
	Live *LiveStatus `json:"live,omitempty"`
	// Rebuild is how far a new index has come while the index above
	// (Files, Progress) serves searches; nil when none is being built.
	Rebuild *RebuildProgress `json:"rebuild,omitempty"`
}

// RebuildProgress is how far a new index (the embedding model changed, or
// semantic search was turned on or off) has come. Searches use the
// previous index until the new one has caught up: Done equals Total.
type RebuildProgress struct {
	// Model is the new index's embedding model; "" when it has none
	// (semantic search turned off).
	Model string `json:"model"`
	// Done counts the files the new index has caught up on: those it
	// holds, and those it tried that wait for a retry (Retrying).
	Done int `json:"done"`
	// Retrying counts the files of Done whose indexing in the new index
	// failed and is retried; until then the new index lacks them.
	Retrying int `json:"retrying,omitempty"`
	// Total counts the files the new index must catch up on: those the
	// previous index holds, and any the new one got meanwhile.
	Total int `json:"total"`
	// Progress is Done / Total in [0, 1]; 1 when Total is 0.
	Progress float64 `json:"progress"`
}

// LiveStatus tells whether live updates (Nextcloud's webhooks) are on and
// how long deliveries take: Nextcloud runs them as background jobs, so
// with the default AJAX cron they wait for page loads.
type LiveStatus struct {
	// Enabled is set while the app's webhooks are registered in Nextcloud.
	// Off, changes are found only by the reconciliation scan.
	Enabled bool `json:"enabled"`
	// ReasonCode says why live updates are off (one of the Live* codes);
	// Reason says it in words, with the fix.
	ReasonCode string `json:"reason_code,omitempty"`
	Reason     string `json:"reason,omitempty"`
	// DeliveriesLastHour counts the webhooks that arrived in the last hour;
	// the delays are between an event's time and its arrival, over them.
	DeliveriesLastHour int     `json:"deliveries_last_hour"`
	DelayP50Seconds    float64 `json:"delay_p50_seconds"`
	DelayP95Seconds    float64 `json:"delay_p95_seconds"`
}

// The reason codes of LiveStatus.
const (
	// LiveWebhookListenersDisabled: the Nextcloud app webhook_listeners is
	// disabled; the fix is occ app:enable webhook_listeners.
	LiveWebhookListenersDisabled = "webhook_listeners_disabled"
	// LiveAppDisabled: AppAPI has this app disabled, which removes its
	// webhooks.
	LiveAppDisabled = "app_disabled"
	// LiveWebhooksMissing: the app is enabled but some of its webhooks are
	// not registered (deleted by hand, say); enabling the app again
	// registers them.
	LiveWebhooksMissing = "webhooks_missing"
	// LiveRegistrationFailed: registering the webhooks failed otherwise.
	LiveRegistrationFailed = "registration_failed"
)

// FileCounts counts a user's files by index status.
type FileCounts struct {
	Indexed int `json:"indexed"`
	Skipped int `json:"skipped"`
	Failed  int `json:"failed"`
	Pending int `json:"pending"`
	Chunks  int `json:"chunks"`
}

// ProblemPartial is the Status of a Problem for a file that is indexed
// but has chunks without a dense vector (FileState.NoVectors): keyword and
// fuzzy search find them, search by meaning does not.
const ProblemPartial = "partial"

// Problem is a file that was not indexed, or only in part, with the
// reason.
type Problem struct {
	FileID  FileID    `json:"file_id"`
	Path    string    `json:"path"`
	Status  string    `json:"status"`
	Error   string    `json:"error"`
	Updated time.Time `json:"updated"`
}

// QueueStatus tells how much work waits and when it should be done.
type QueueStatus struct {
	Pending       int     `json:"pending"`
	JobsPerSecond float64 `json:"jobs_per_second"`
	ETASeconds    float64 `json:"eta_seconds"` // 0 when nothing waits, the rate is unknown or the queue is paused
	// Paused is set while work waits that cannot go on: no embedding
	// host answers. PausedReason says so in words.
	Paused       bool   `json:"paused,omitempty"`
	PausedReason string `json:"paused_reason,omitempty"`
	Error        string `json:"error,omitempty"`
}

// ScanProgress is how far the reconciliation scan has come. Admins see
// every field. Other users see the scan only while the first full scan
// runs (Initial), with Running, Started and Initial set and the
// instance's figures (users, files) left zero.
type ScanProgress struct {
	Running bool `json:"running"`
	// Initial marks the first full scan of a new index: the index held no
	// file when it started. After install it runs once the app is enabled
	// (the app reports init done as soon as it can serve), so until it
	// ends search finds only part of the files.
	Initial      bool      `json:"initial,omitempty"`
	Started      time.Time `json:"started,omitzero"`
	Finished     time.Time `json:"finished,omitzero"`
	UsersTotal   int       `json:"users_total"`
	UsersDone    int       `json:"users_done"`
	FilesSeen    int       `json:"files_seen"`
	Queued       int       `json:"queued"`
	UsersGone    int       `json:"users_gone,omitempty"` // users found deleted in Nextcloud
	LastError    string    `json:"last_error,omitempty"`
	DurationSecs float64   `json:"duration_seconds,omitempty"`
}

// Counters are the indexing pipeline's running totals.
type Counters struct {
	Processed int64 `json:"processed"` // jobs handled
	Embedded  int64 `json:"embedded"`  // chunks sent to the embedder
	Reused    int64 `json:"reused"`    // chunks whose vector was reused
}

// ComponentStatus is one component's health. Code names a state a
// client translates (one of the Component* codes; "" for plain health or
// a failure the component's name says enough about); Error says what is
// wrong in English, Note what is worth knowing about a component that
// works, Detail what a state is about (the missing OCR languages). Users
// who are not admins get the codes only.
type ComponentStatus struct {
	OK     bool     `json:"ok"`
	Error  string   `json:"error,omitempty"`
	Code   string   `json:"code,omitempty"`
	Note   string   `json:"note,omitempty"`
	Detail []string `json:"detail,omitempty"`
}

// Component states (ComponentStatus.Code). The set may grow.
const (
	ComponentOCROff              = "ocr_off"               // OCR is turned off
	ComponentOCRUnavailable      = "ocr_unavailable"       // tesseract is missing or fails
	ComponentOCRNoLanguages      = "ocr_no_languages"      // none of the OCR languages is installed
	ComponentOCRLanguagesMissing = "ocr_languages_missing" // a note: some OCR languages are not installed (Detail), the others are used
	ComponentSettingsIgnored     = "settings_ignored"      // some admin settings are not used: the environment's apply
	ComponentSettingsNotApplied  = "settings_not_applied"  // the embedding settings could not be applied
	ComponentSettingsUnreadable  = "settings_unreadable"   // the admin settings could not be read from Nextcloud
	ComponentNoEmbeddingHost     = "no_embedding_host"     // no embedding host answers
)

// ComponentCodes lists every ComponentStatus.Code, for clients that translate them.
var ComponentCodes = []string{ComponentOCROff, ComponentOCRUnavailable, ComponentOCRNoLanguages, ComponentOCRLanguagesMissing,
	ComponentSettingsIgnored, ComponentSettingsNotApplied, ComponentSettingsUnreadable, ComponentNoEmbeddingHost}

// ComponentNote is what a health check returns for a component that works
// but is worth a note (ComponentStatus.Note): the status reports it OK.
type ComponentNote struct {
	Code    string
	Message string
	Detail  []string
}

// Error returns the message.
func (n *ComponentNote) Error() string { return n.Message }

// HostHealth is one embedding host's health.
type HostHealth struct {
	Host  string `json:"host"` // its base URL
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}
