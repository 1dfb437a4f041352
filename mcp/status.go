package mcp

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"strings"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// maxProblems caps the problems nc_index_status lists.
const maxProblems = 20

const statusDescription = `Report the state of the search index for the signed-in user: how many of their files and notes are indexed, skipped, failed or waiting, how far indexing has progressed and when it should be done, which files could not be indexed and why, and whether every component (Nextcloud, the queue, the index store, the embedding model) is healthy. ` +
	`Use it when expected documents do not show up in searches. ` +
	`With all, a Nextcloud admin gets every user's counts as well; anyone else is refused.`

// statusInput is nc_index_status's argument object.
type statusInput struct {
	All bool `json:"all,omitempty"`
}

// status runs nc_index_status. Its result is hs.IndexStatus, as
// GET /api/status reports it, with at most maxProblems problems listed.
func (h *handler) status(ctx context.Context, user hs.UserID, in statusInput) (hs.IndexStatus, string, error) {
	st, err := h.o.Status.Status(ctx, user, in.All)
	if err != nil {
		return hs.IndexStatus{}, "", err
	}
	if st.Components == nil {
		st.Components = map[string]hs.ComponentStatus{}
	}
	if st.ProblemsTotal < len(st.Problems) {
		st.ProblemsTotal = len(st.Problems)
	}
	if len(st.Problems) > maxProblems {
		st.Problems = st.Problems[:maxProblems]
	}
	if st.Problems == nil {
		st.Problems = []hs.Problem{}
	}
	return st, renderStatus(st), nil
}

// renderStatus is the text content.
func renderStatus(st hs.IndexStatus) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Search index for %s: %d indexed, %d skipped, %d failed, %d waiting (%d chunks); %.0f%% done.\n",
		st.User, st.Files.Indexed, st.Files.Skipped, st.Files.Failed, st.Files.Pending, st.Files.Chunks, 100*st.Progress)
	if q := st.Queue; q.Pending > 0 {
		fmt.Fprintf(&b, "Queue: %d jobs", q.Pending)
		if q.Paused {
			fmt.Fprintf(&b, ", paused: %s", q.PausedReason)
		} else if q.ETASeconds > 0 {
			fmt.Fprintf(&b, ", about %s left", (time.Duration(q.ETASeconds) * time.Second).String())
		}
		b.WriteString(".\n")
	}
	if st.Scan != nil && st.Scan.Running {
		if st.Scan.Initial {
			b.WriteString("The first full scan of every user's files is running: search finds only part of them until it ends.\n")
		} else {
			b.WriteString("A reconciliation scan is running.\n")
		}
	}
	if l := st.Live; l != nil && !l.Enabled {
		fmt.Fprintf(&b, "Live updates are off: %s\n", l.Reason)
	} else if l != nil && l.DeliveriesLastHour > 0 {
		fmt.Fprintf(&b, "Live updates are on: %d changes arrived in the last hour, typically %s after they were made (95%% within %s).\n",
			l.DeliveriesLastHour, secs(l.DelayP50Seconds), secs(l.DelayP95Seconds))
	}
	components := map[string]hs.ComponentStatus{} // the queue's error reads as one more
	maps.Copy(components, st.Components)
	if st.Queue.Error != "" {
		components["queue"] = hs.ComponentStatus{Error: st.Queue.Error}
	}
	names := make([]string, 0, len(components))
	for n := range components {
		names = append(names, n)
	}
	sort.Strings(names)
	if st.Healthy {
		fmt.Fprintf(&b, "All components are healthy (%s).\n", strings.Join(names, ", "))
	} else {
		for _, n := range names {
			if c := components[n]; !c.OK {
				fmt.Fprintf(&b, "%s is unavailable: %s\n", n, c.Error)
			}
		}
	}
	for _, h := range st.Embedders {
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

// secs prints seconds as a duration ("2s", "1m30s").
func secs(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(time.Second).String()
}
