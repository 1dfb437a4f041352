package e2etest

import (
	"errors"
	"os"
	"os/exec"
	"testing"
)

// RunMainEnv, set to 1, makes a test binary run its command's main (or,
// for app, "serve") instead of the tests; each package's TestMain checks it.
const RunMainEnv = "HYBRIDSEARCH_RUN_MAIN"

// Command runs the test binary itself with args, as the command under
// test (RunMainEnv=1), logging at warn.
func Command(t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), RunMainEnv+"=1", "LOG_LEVEL=warn")
	return cmd
}

// ExitCode runs cmd and returns its exit code and combined output; a
// failure to run it at all fails t.
func ExitCode(t testing.TB, cmd *exec.Cmd) (int, string) {
	t.Helper()
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), string(out)
	case err != nil:
		t.Fatal(err)
	}
	return 0, string(out)
}
