package cli

import (
	"context"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
)

// TestUsageErrorsAreOneLine: a command given wrong arguments says what is
// wrong in one line and where the help is, instead of printing the whole
// help; -h still prints it.
func TestUsageErrorsAreOneLine(t *testing.T) {
	env := func(string) string { return "" }
	commands := map[string]func(args []string, stdout, stderr io.Writer) error{
		"search": func(a []string, o, e io.Writer) error { return Search(context.Background(), a, env, o, e) },
		"status": func(a []string, o, e io.Writer) error { return Status(context.Background(), a, env, o, e) },
		"scan":   func(a []string, o, e io.Writer) error { return Control(context.Background(), "scan", a, env, o, e) },
		"token":  func(a []string, o, e io.Writer) error { return Token(context.Background(), a, env, o, e) },
		"install-json": func(a []string, o, e io.Writer) error {
			return InstallJSON(a, o, e)
		},
	}
	tests := []struct {
		name string
		cmd  string
		args []string
		want string
	}{
		{"search without user", "search", []string{"kubernetes"}, "--user and a query are required"},
		{"search without query", "search", []string{"--user", "alice"}, "--user and a query are required"},
		{"search unknown flag", "search", []string{"--bogus", "x"}, "flag provided but not defined: -bogus"},
		{"search bad weights", "search", []string{"--user", "a", "--weights", "1,2", "q"}, "--weights needs three numbers"},
		{"status without user", "status", nil, "--user is required"},
		{"status unknown flag", "status", []string{"--user", "a", "--bogus"}, "flag provided but not defined: -bogus"},
		{"scan without user", "scan", nil, "--user is required"},
		{"token without subcommand", "token", nil, "say issue, list or revoke"},
		{"token unknown subcommand", "token", []string{"frob", "--user", "a"}, `unknown command "frob"`},
		{"token without user", "token", []string{"list"}, "--user is required"},
		{"token bad flag value", "token", []string{"issue", "--user", "a", "--days", "x"}, `invalid value "x" for flag -days`},
		{"install-json unknown flag", "install-json", []string{"--bogus"}, "flag provided but not defined: -bogus"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb strings.Builder
			err := commands[tt.cmd](tt.args, &out, &errb)
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s %q = %v, want one line with %q", tt.cmd, tt.args, err, tt.want)
			}
			if err != nil && !strings.Contains(err.Error(), `"hybridsearch `+tt.cmd+` -h"`) {
				t.Errorf("%s %q = %v, want it to name %q", tt.cmd, tt.args, err, "hybridsearch "+tt.cmd+" -h")
			}
			if errb.Len() > 0 || out.Len() > 0 {
				t.Errorf("%s %q printed more than the error:\n%s%s", tt.cmd, tt.args, out.String(), errb.String())
			}
		})
	}
	for cmd, run := range commands {
		var out, errb strings.Builder
		if err := run([]string{"-h"}, &out, &errb); !errors.Is(err, flag.ErrHelp) || !strings.Contains(errb.String(), "Usage:") {
			t.Errorf("%s -h = %v, %q; want the help", cmd, err, errb.String())
		}
	}
}

// TestPrintResultsCountsInEnglish: one result is "1 result", not
// "1 results".
func TestPrintResultsCountsInEnglish(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string
	}{{0, "0 results for"}, {1, "1 result for"}, {2, "2 results for"}} {
		var out strings.Builder
		res := hs.SearchResult{Query: "q", Algorithm: "hybrid", Results: make([]hs.DocumentResult, tt.n)}
		printResults(&out, res)
		if !strings.HasPrefix(out.String(), tt.want) {
			t.Errorf("printResults with %d results: %q, want %q...", tt.n, out.String(), tt.want)
		}
	}
}
