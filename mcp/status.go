package mcp

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// maxProblems caps the problems nc_index_status lists.
const maxProblems = 20

const statusDescription = `Report the state of the search index for the signed-in user: how many of their files and notes are indexed, skipped, failed or waiting, how far indexing has progressed and when it should be done, which files could not be indexed and why, and whether every component (Nextcloud, the queue, the index store, the embedding model) is healthy. ` +
	`Use it when expected documents do not show up in searches.`

// IndexStatus is one user's indexing status, as nc_index_status reports
// it.
type IndexStatus struct {
	User    hs.UserID `json:"user"`
	Indexed int       `json:"indexed"` // files and notes in the index
	Skipped int       `json:"skipped"` // excluded or unsupported, on purpose
	Failed  int       `json:"failed"`  // gave up after retries
	Pending int       `json:"pending"` // waiting or being retried
	Chunks  int       `json:"chunks"`
	// Progress is (indexed + skipped + failed) / all files, in [0, 1];
	// 1 when there are none. NewHandler fills it in.
	Progress     float64           `json:"progress"`
	QueuePending int               `json:"queue_pending"` // jobs of every user
	ETASeconds   float64           `json:"eta_seconds,omitempty"`
	Scanning     bool              `json:"scanning"` // a reconciliation scan runs
	LastScan     time.Time         `json:"last_scan,omitzero"`
	Healthy      bool              `json:"healthy"` // every component is OK; NewHandler fills it in
	Components   map[string]Health `json:"components"`

	// Paused is set while work waits that cannot go on (no embedding
	// host answers); PausedReason says why. ETASeconds is then 0.
	Paused       bool   `json:"paused,omitempty"`
	PausedReason string `json:"paused_reason,omitempty"`
	// EmbeddingHosts is each embedding host's health (admins only).
	EmbeddingHosts []HostHealth `json:"embedding_hosts,omitempty"`

	// Problems are files that were not indexed, newest first; at most
	// maxProblems are listed.
	Problems      []Problem `json:"problems"`
	ProblemsTotal int       `json:"problems_total"`
}

// Health is one component's health.
type Health struct {
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

// HostHealth is one embedding host's health.
type HostHealth struct {
	Host  string `json:"host"`
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

// Problem is a file that could not be indexed, and why.
type Problem struct {
	FileID int64  `json:"file_id"`
	Path   string `json:"path"`
	Status string `json:"status"`
	Error  string `json:"error"`
}

// statusInput is nc_index_status's (empty) argument object.
type statusInput struct{}

// status runs nc_index_status.
func (h *handler) status(ctx context.Context, user hs.UserID, _ statusInput) (IndexStatus, string, error) {
	st, err := h.o.Status.IndexStatus(ctx, user)
	if err != nil {
		return IndexStatus{}, "", err
	}
	st.User = user
	if total := st.Indexed + st.Skipped + st.Failed + st.Pending; total > 0 {
		st.Progress = float64(st.Indexed+st.Skipped+st.Failed) / float64(total)
	} else {
		st.Progress = 1
	}
	st.Healthy = true
	for _, c := range st.Components {
		st.Healthy = st.Healthy && c.OK
	}
	if st.Components == nil {
		st.Components = map[string]Health{}
	}
	if st.ProblemsTotal < len(st.Problems) {
		st.ProblemsTotal = len(st.Problems)
	}
	if len(st.Problems) > maxProblems {
		st.Problems = st.Problems[:maxProblems]
	}
	if st.Problems == nil {
		st.Problems = []Problem{}
	}
	return st, renderStatus(st), nil
}

// renderStatus is the text content.
func renderStatus(st IndexStatus) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Search index for %s: %d indexed, %d skipped, %d failed, %d waiting (%d chunks); %.0f%% done.\n",
		st.User, st.Indexed, st.Skipped, st.Failed, st.Pending, st.Chunks, 100*st.Progress)
	if st.QueuePending > 0 {
		fmt.Fprintf(&b, "Queue: %d jobs", st.QueuePending)
		if st.Paused {
			fmt.Fprintf(&b, ", paused: %s", st.PausedReason)
		} else if st.ETASeconds > 0 {
			fmt.Fprintf(&b, ", about %s left", (time.Duration(st.ETASeconds) * time.Second).String())
		}
		b.WriteString(".\n")
	}
	if st.Scanning {
		b.WriteString("A reconciliation scan is running.\n")
	}
	names := make([]string, 0, len(st.Components))
	for n := range st.Components {
		names = append(names, n)
	}
	sort.Strings(names)
	if st.Healthy {
		fmt.Fprintf(&b, "All components are healthy (%s).\n", strings.Join(names, ", "))
	} else {
		for _, n := range names {
			if c := st.Components[n]; !c.OK {
				fmt.Fprintf(&b, "%s is unavailable: %s\n", n, c.Error)
			}
		}
	}
	for _, h := range st.EmbeddingHosts {
		if !h.OK {
			fmt.Fprintf(&b, "Embedding host %s is unavailable: %s\n", h.Host, h.Error)
		}
	}
	if st.ProblemsTotal > 0 {
		fmt.Fprintf(&b, "\n%d files could not be indexed", st.ProblemsTotal)
		if st.ProblemsTotal > len(st.Problems) {
			fmt.Fprintf(&b, " (the newest %d)", len(st.Problems))
		}
		b.WriteString(":\n")
		for _, p := range st.Problems {
			fmt.Fprintf(&b, "- %s (%s): %s\n", p.Path, p.Status, strings.TrimSpace(p.Error))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
