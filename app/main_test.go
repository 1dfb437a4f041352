package app

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/hybrid-search/hybridsearch/internal/e2etest"
)

// TestMain lets tests run the app in a child process: with
// HYBRIDSEARCH_RUN_MAIN=1 the test binary runs "serve" as cmd/hybridsearch
// does (Serve, exit 1 on an error; on the listener of fd 3 when the test
// passed one, see startOn), with HYBRIDSEARCH_RUN_QDRANTFAKE a fake Qdrant
// (it prints "READY <url>").
func TestMain(m *testing.M) {
	if os.Getenv(e2etest.RunMainEnv) == "1" {
		os.Exit(serveChild())
	}
	if addr := os.Getenv("HYBRIDSEARCH_RUN_QDRANTFAKE"); addr != "" {
		runQdrantFake(addr)
		return
	}
	os.Exit(m.Run())
}

// serveChild is "hybridsearch serve" in a child process.
func serveChild() int {
	if len(os.Args) < 2 || os.Args[1] != "serve" {
		fmt.Fprintln(os.Stderr, "the test binary runs only serve, not", os.Args[1:])
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := inheritedListener()
	if err != nil {
		fmt.Fprintln(os.Stderr, "hybridsearch:", err)
		return 1
	}
	if err := serveOn(ctx, ln, os.Getenv, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "hybridsearch:", err)
		return 1
	}
	return 0
}
