package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

const statusUsage = `Usage: hybridsearch status --user UID [--all] [--json]

Prints the indexing status the way GET /api/status reports it: files indexed,
skipped, failed and waiting, chunks, the queue and its ETA ("paused" while no
embedding host answers), the current scan, whether live updates (Nextcloud's
webhooks) are on, with how many arrived in the last hour and how late (p50 and
p95 of the time from the change to its arrival), or why they are off,
component health (each Ollama host for admins) and the files that could not be
indexed, with reasons.
--all shows every user's counts (the user must be a Nextcloud admin).

It talks to the running app, reading APP_ID, APP_SECRET, APP_HOST and APP_PORT
from the environment (inside the ExApp container they are set). In the demo,
the app's environment is written to <data>/app.env.

Flags:
`

// Status prints the status of the running app.
func Status(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("status", flag.ContinueOnError)
	fl.SetOutput(stderr)
	user := fl.String("user", "", "Nextcloud user to report for (required)")
	all := fl.Bool("all", false, "every user's counts (admins only)")
	asJSON := fl.Bool("json", false, "print the raw JSON")
	fl.Usage = func() { fmt.Fprint(stderr, statusUsage); fl.PrintDefaults() }
	if err := ParseFlags(fl, args); err != nil {
		return err
	}
	if *user == "" {
		return Usagef("status", "--user is required")
	}
	c, err := newAPIClient(getenv)
	if err != nil {
		return err
	}
	path := "/api/status"
	if *all {
		path += "?all=1"
	}
	var raw json.RawMessage
	if err := c.do(ctx, "GET", path, *user, nil, &raw); err != nil {
		return needsAdmin("status", *user, err)
	}
	if *asJSON {
		_, err := fmt.Fprintln(stdout, string(raw))
		return err
	}
	var rep hs.IndexStatus
	if err := json.Unmarshal(raw, &rep); err != nil {
		return err
	}
	printStatus(stdout, rep)
	return nil
}

func printStatus(w io.Writer, rep hs.IndexStatus) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	f := rep.Files
	fmt.Fprintf(tw, "Hybrid Search %s, status for %s\n\n", rep.Version, rep.User)
	fmt.Fprintf(tw, "files\tindexed %d\tskipped %d\tfailed %d\twaiting %d\n", f.Indexed, f.Skipped, f.Failed, f.Pending)
	fmt.Fprintf(tw, "chunks\t%d\n", f.Chunks)
	q := rep.Queue
	eta := "-"
	if q.Paused {
		eta = "paused (" + q.PausedReason + ")"
	} else if q.ETASeconds > 0 {
		eta = (time.Duration(q.ETASeconds) * time.Second).String()
	}
	fmt.Fprintf(tw, "queue\t%d jobs\t%.1f jobs/s\tETA %s\n", q.Pending, q.JobsPerSecond, eta)
	if s := rep.Scan; s != nil && !s.Started.IsZero() {
		state := "finished " + s.Finished.Local().Format(time.DateTime)
		if s.Running {
			state = fmt.Sprintf("running: %d of %d users", s.UsersDone, s.UsersTotal)
		}
		fmt.Fprintf(tw, "scan\t%s\t%d files seen\t%d queued\n", state, s.FilesSeen, s.Queued)
	}
	if l := rep.Live; l != nil {
		if l.Enabled {
			fmt.Fprintf(tw, "live updates\ton\t%d in the last hour\tdelay p50 %s p95 %s\n", l.DeliveriesLastHour, seconds(l.DelayP50Seconds), seconds(l.DelayP95Seconds))
		} else {
			fmt.Fprintf(tw, "live updates\tOFF (%s): %s\n", l.ReasonCode, l.Reason)
		}
	}
	if rb := rep.Rebuild; rb != nil {
		model := rb.Model
		if model == "" {
			model = "none (keyword and fuzzy only)"
		}
		fmt.Fprintf(tw, "new index\tmodel %s\t%d of %d files (%.0f%%)\t%d retrying\tsearches use it once done\n", model, rb.Done, rb.Total, 100*rb.Progress, rb.Retrying)
	}
	names := make([]string, 0, len(rep.Components))
	for n := range rep.Components {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c := rep.Components[n]
		state := "ok"
		if !c.OK {
			state = "UNAVAILABLE: " + c.Error
		}
		fmt.Fprintf(tw, "%s\t%s\n", n, state)
	}
	for _, h := range rep.Embedders {
		state := "ok"
		if !h.OK {
			state = "UNAVAILABLE: " + h.Error
		}
		fmt.Fprintf(tw, "  ollama %s\t%s\n", h.Host, state)
	}
	users := make([]string, 0, len(rep.PerUser))
	for u := range rep.PerUser {
		users = append(users, u)
	}
	sort.Strings(users)
	if len(users) > 0 {
		fmt.Fprintf(tw, "\nuser\tindexed\tskipped\tfailed\twaiting\tchunks\n")
		for _, u := range users {
			c := rep.PerUser[u]
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\n", u, c.Indexed, c.Skipped, c.Failed, c.Pending, c.Chunks)
		}
	}
	tw.Flush()
	if len(rep.Problems) > 0 {
		fmt.Fprintf(w, "\nFiles not indexed:\n")
		for _, p := range rep.Problems {
			fmt.Fprintf(w, "  %-8s %s: %s\n", p.Status, p.Path, strings.TrimSpace(p.Error))
		}
	}
}

// seconds prints a number of seconds as a duration ("4s", "2m30s").
func seconds(s float64) string {
	return (time.Duration(s * float64(time.Second))).Round(time.Second).String()
}

const controlUsage = `Usage: hybridsearch %s --user UID [--all]

%s
--all acts on every user's files (the user must be a Nextcloud admin).
It talks to the running app like "hybridsearch status".

Flags:
`

// Control runs "scan" (a reconciliation scan) or "retry" (failed files).
func Control(ctx context.Context, cmd string, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fl.SetOutput(stderr)
	user := fl.String("user", "", "Nextcloud user (required)")
	all := fl.Bool("all", false, "every user's files (admins only)")
	what := map[string]string{
		"scan":  "Starts a reconciliation scan: the user's files are compared with the index\nand whatever differs (new, changed, moved, unshared) is queued.",
		"retry": "Queues every file that failed to index again, e.g. after a fix.",
	}[cmd]
	fl.Usage = func() { fmt.Fprintf(stderr, controlUsage, cmd, what); fl.PrintDefaults() }
	if err := ParseFlags(fl, args); err != nil {
		return err
	}
	if *user == "" {
		return Usagef(cmd, "--user is required")
	}
	c, err := newAPIClient(getenv)
	if err != nil {
		return err
	}
	path := "/api/" + cmd
	if *all {
		path += "?all=1"
	}
	var out map[string]any
	if err := c.do(ctx, "POST", path, *user, nil, &out); err != nil {
		return needsAdmin(cmd, *user, err)
	}
	if cmd == "scan" {
		fmt.Fprintln(stdout, "scan requested; follow it with: hybridsearch status --user", *user)
	} else {
		n, _ := out["queued"].(float64) // a JSON number
		fmt.Fprintln(stdout, plural(int(n), "failed file"), "queued again")
	}
	return nil
}
