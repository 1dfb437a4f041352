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
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/hybrid-search/hybridsearch/appinfo"
)

// Version is the app's version: appinfo/info.xml's <version>, embedded in
// the binary, so the binary, the image tag and the release archive cannot
// disagree. AppAPI's APP_VERSION is what Nextcloud registered.
var Version = appinfo.Version()

const usage = `hybridsearch — hybrid search for Nextcloud (an AppAPI ExApp)

Usage:
  hybridsearch demo [flags]     run a simulated Nextcloud with the app installed (try this first)
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

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// run executes one subcommand and returns the process exit code.
func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintf(stderr, usage, configHelp())
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
		err = runDemo(ctx, args[1:], getenv, stdout, stderr)
	case "search":
		err = runSearch(ctx, args[1:], getenv, stdout, stderr)
	case "status":
		err = runStatus(ctx, args[1:], getenv, stdout, stderr)
	case "scan", "retry":
		err = runControl(ctx, args[0], args[1:], getenv, stdout, stderr)
	case "token":
		err = runToken(ctx, args[1:], getenv, stdout, stderr)
	case "install-json":
		err = runInstallJSON(args[1:], stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, "hybridsearch", Version)
	case "help", "-h", "--help":
		fmt.Fprintf(stdout, usage, configHelp())
	default:
		fmt.Fprintf(stderr, "hybridsearch: unknown command %q\n\n", args[0])
		fmt.Fprintf(stderr, usage, configHelp())
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
	fs.Usage = func() { fmt.Fprintf(stderr, usage, configHelp()) }
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := LoadConfig(getenv)
	if err != nil {
		return err
	}
	logger := newLogger(stderr, cfg.LogLevel, cfg.LogFormat)
	if cfg.AppVersion != Version {
		logger.Warn("AppAPI registered another version of the app than this build; run occ app_api:app:update",
			"app_version", cfg.AppVersion, "build_version", Version)
	}
	m := NewMain(cfg, logger)
	if err := m.Run(ctx); err != nil {
		_ = m.Close()
		return err
	}
	logger.Info("serving", "addr", m.ListenAddr(), "version", Version)
	return serveUntil(ctx, m, logger)
}

// serveUntil waits until ctx ends (a signal), then shuts m down, or until
// one of m's components fails, which shuts m down too and is returned, so
// the process exits non-zero with one line naming the component.
func serveUntil(ctx context.Context, m *Main, logger *slog.Logger) error {
	select {
	case <-ctx.Done():
	case err := <-m.Done():
		return fmt.Errorf("stopped because a component failed: %w", err)
	}
	logger.Info("shutting down")
	return m.Close()
}

// newLogger builds the process logger.
func newLogger(w io.Writer, level, format string) *slog.Logger {
	var lv slog.Level
	_ = lv.UnmarshalText([]byte(strings.ToUpper(level)))
	opts := &slog.HandlerOptions{Level: lv}
	if format == "json" {
		return slog.New(requestIDHandler{slog.NewJSONHandler(w, opts)})
	}
	return slog.New(requestIDHandler{slog.NewTextHandler(w, opts)})
}

// shutdownTimeout bounds Main.Close.
const shutdownTimeout = 20 * time.Second
