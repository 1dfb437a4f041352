package cli

import (
	"flag"
	"io"
	"slices"
	"testing"
)

// TestRevokeIDStartingWithDash: a token id is base64url and may start with
// "-" (CI once issued "-n9HfuWxxyRx3uQQhqmmyg", and revoke refused it as an
// unknown flag); the last argument is the id unless it names a flag.
func TestRevokeIDStartingWithDash(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args     []string
		user, id string
		json     bool
	}{
		{[]string{"--user", "alice", "-n9HfuWxxyRx3uQQhqmmyg"}, "alice", "-n9HfuWxxyRx3uQQhqmmyg", false},
		{[]string{"--user", "alice", "--n9Hf"}, "alice", "--n9Hf", false},
		{[]string{"--user", "alice", "abc"}, "alice", "abc", false},
		{[]string{"--json", "--user", "alice", "-abc"}, "alice", "-abc", true},
		{[]string{"--user=alice", "-x-y"}, "alice", "-x-y", false},
	}
	for _, tt := range tests {
		fl := flag.NewFlagSet("token", flag.ContinueOnError)
		fl.SetOutput(io.Discard)
		user := fl.String("user", "", "")
		asJSON := fl.Bool("json", false, "")
		if err := fl.Parse(idLast(fl, tt.args)); err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		if *user != tt.user || *asJSON != tt.json || !slices.Equal(fl.Args(), []string{tt.id}) {
			t.Errorf("%q: user %q json %v args %q, want %q %v [%q]", tt.args, *user, *asJSON, fl.Args(), tt.user, tt.json, tt.id)
		}
	}
}
