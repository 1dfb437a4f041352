// Command hybridsearch is the Hybrid Search ExApp for Nextcloud: it keeps a
// hybrid (semantic + keyword + fuzzy) index of every user's files and notes
// and answers searches from a panel inside Nextcloud and from MCP clients.
//
// Run "hybridsearch help" for the subcommands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/hybrid-search/hybridsearch/app"
	"github.com/hybrid-search/hybridsearch/cli"
)

const usage = `hybridsearch — hybrid search for Nextcloud (an AppAPI ExApp)

Usage:
  hybridsearch-demo [flags]     run a simulated Nextcloud with the app installed (try this first;
                                a command of its own: go run ./cmd/hybridsearch-demo)
  hybridsearch serve            run as an ExApp; configured by the environment AppAPI sets
  hybridsearch worker           index only (scale-out beside serve; needs NATS_URL and QDRANT_URL)
  hybridsearch search --user U QUERY   search U's files and notes (talks to the running app)
  hybridsearch status --user U  show indexing status (talks to the running app)
  hybridsearch scan --user U    start a reconciliation scan of U's files (--all: everyone's)
  hybridsearch retry --user U   queue U's failed files again (--all: everyone's)
  hybridsearch token issue|list|revoke --user U   bearer tokens for direct MCP access
  hybridsearch install-json     the JSON for occ app_api:app:register --json-info (manual install)
  hybridsearch version          print the version
  hybridsearch help             show this text

Run "hybridsearch COMMAND -h" for a command's flags.

"serve" reads its configuration from these environment variables:
%s
AppAPI sets the APP_* variables, NEXTCLOUD_URL and AA_VERSION when it deploys the app.
`

// workerUsage explains hybridsearch worker.
const workerUsage = `Usage: hybridsearch worker

Runs indexing consumers only: no API, no panel, no MCP; it serves
/metrics, /healthz and /readyz on METRICS_ADDR (default :9090). Start any
number beside one "hybridsearch serve" with the same environment: they share
NATS (NATS_URL, required) and Qdrant (QDRANT_URL, required: the embedded
local store belongs to one process) and the queue's durable consumer
spreads the jobs over every process. Full reconciliation scans (at start,
on enable, every SCAN_INTERVAL and from "hybridsearch scan") run in serve
only; a worker runs only the rescans its own jobs ask for (a deleted
folder). APP_PORT is not needed. With WORKERS=0, serve indexes nothing
itself (it still scans and queues the jobs) and leaves all indexing to the
workers.
`

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// run executes one subcommand and returns the process exit code.
func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintf(stderr, usage, app.ConfigHelp())
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch args[0] {
	case "serve":
		err = runServe(ctx, args[1:], getenv, stderr)
	case "worker":
		err = runWorker(ctx, args[1:], getenv, stderr)
	case "demo":
		fmt.Fprintln(stderr, "hybridsearch: the demo is its own command now: go run ./cmd/hybridsearch-demo (or the hybridsearch-demo binary)")
		return 2
	case "search":
		err = cli.Search(ctx, args[1:], getenv, stdout, stderr)
	case "status":
		err = cli.Status(ctx, args[1:], getenv, stdout, stderr)
	case "scan", "retry":
		err = cli.Control(ctx, args[0], args[1:], getenv, stdout, stderr)
	case "token":
		err = cli.Token(ctx, args[1:], getenv, stdout, stderr)
	case "install-json":
		err = cli.InstallJSON(args[1:], stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, "hybridsearch", app.Version)
	case "help", "-h", "--help":
		fmt.Fprintf(stdout, usage, app.ConfigHelp())
	default:
		fmt.Fprintf(stderr, "hybridsearch: unknown command %q (see \"hybridsearch help\")\n", args[0])
		return 2
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "hybridsearch:", err)
		return 1
	}
	return 0
}

// runServe runs the app in ExApp mode until ctx is cancelled.
func runServe(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintf(stderr, usage, app.ConfigHelp()) }
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("serve", "unexpected argument %q", fs.Arg(0))
	}
	return app.Serve(ctx, getenv, stderr)
}

// runWorker runs a consumer-only process until ctx is cancelled.
func runWorker(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, workerUsage) }
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("worker", "unexpected argument %q", fs.Arg(0))
	}
	return app.RunWorker(ctx, getenv, stderr)
}
