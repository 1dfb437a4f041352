// Command hybridsearch-demo runs the Hybrid Search app against a simulated
// Nextcloud (nextcloud/ncsim) with two users and a sample folder: the
// product on one machine, without a Nextcloud. Run with -h for its flags.
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
)

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// run runs the demo and returns the process exit code: 0 after a signal
// or -h, 2 for a usage error, 1 when the demo failed.
func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := runDemo(ctx, args, getenv, stdout, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		fmt.Fprintln(stderr, "hybridsearch-demo:", err)
		return 1
	}
	return 0
}
