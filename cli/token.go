package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

const tokenUsage = `Usage:
  hybridsearch token issue  --user UID [--name NAME] [--days N] [--json]
  hybridsearch token list   --user UID [--json]
  hybridsearch token revoke --user UID TOKEN_ID

Manages a user's bearer tokens for direct MCP access: an MCP client sends
"Authorization: Bearer <token>" to the app's own /mcp (when its port is
reachable) instead of going through the Nextcloud proxy with an app password.
"list" also shows the sign-ins of OAuth clients (KIND oauth); "revoke" ends
such a grant with all its access and refresh tokens.
A token carries the scope search:read, is valid for --days (default 90, at
most 365) and can be revoked at any time. It is shown once, when issued.

It talks to the running app's /api/tokens like "hybridsearch status",
reading APP_ID, APP_SECRET, APP_HOST and APP_PORT from the environment.

Flags:
`

// idLast returns args with "--" before the last one when that one starts
// with "-" but names no flag of fl: a token id is base64url and may start
// with "-", which the flag package would take for an unknown flag.
func idLast(fl *flag.FlagSet, args []string) []string {
	if len(args) == 0 {
		return args
	}
	last := args[len(args)-1]
	name, _, _ := strings.Cut(strings.TrimLeft(last, "-"), "=")
	if !strings.HasPrefix(last, "-") || last == "--" || fl.Lookup(name) != nil {
		return args
	}
	return append(slices.Clone(args[:len(args)-1]), "--", last)
}

// Token runs "token issue|list|revoke".
func Token(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("token", flag.ContinueOnError)
	fl.SetOutput(stderr)
	user := fl.String("user", "", "Nextcloud user whose tokens these are (required)")
	name := fl.String("name", "", "issue: a name to recognise the token by, e.g. \"Claude Desktop\"")
	days := fl.Int("days", 0, "issue: days the token is valid (default 90, at most 365)")
	asJSON := fl.Bool("json", false, "print JSON")
	fl.Usage = func() { fmt.Fprint(stderr, tokenUsage); fl.PrintDefaults() }
	if len(args) == 0 {
		return Usagef("token", "say issue, list or revoke")
	}
	if len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		fl.Usage()
		return flag.ErrHelp
	}
	cmd := args[0]
	rest := args[1:]
	if cmd == "revoke" {
		rest = idLast(fl, rest)
	}
	switch cmd {
	case "issue", "list", "revoke":
	default:
		return Usagef("token", "unknown command %q (issue, list or revoke)", cmd)
	}
	if err := ParseFlags(fl, rest); err != nil {
		return err
	}
	if *user == "" {
		return Usagef("token", "%s: --user is required", cmd)
	}
	var id string
	switch {
	case cmd == "revoke" && fl.NArg() == 1:
		id = fl.Arg(0)
	case cmd == "revoke":
		return Usagef("token", "revoke: give exactly one token id (\"hybridsearch token list --user %s\" shows them)", *user)
	case fl.NArg() > 0:
		return Usagef("token", "%s: unexpected argument %q", cmd, fl.Arg(0))
	}
	c, err := newAPIClient(getenv)
	if err != nil {
		return err
	}
	switch cmd {
	case "issue":
		var out struct {
			Raw string `json:"token"`
			hs.Token
		}
		if err := c.do(ctx, "POST", "/api/tokens", *user, map[string]any{"name": *name, "ttl_days": *days}, &out); err != nil {
			return err
		}
		if *asJSON {
			return json.NewEncoder(stdout).Encode(out)
		}
		fmt.Fprintf(stdout, "Token %q for %s (id %s), valid until %s:\n\n  %s\n\n", out.Name, out.User, out.ID, out.Expires.Local().Format(time.DateTime), out.Raw)
		fmt.Fprintf(stdout, "Send it as \"Authorization: Bearer <token>\" to the app's /mcp, here %s/mcp.\nIt is not shown again; revoke it with: hybridsearch token revoke --user %s %s\n", c.base, out.User, out.ID)
		return nil
	case "list":
		var out struct {
			Tokens []hs.Token `json:"tokens"`
		}
		if err := c.do(ctx, "GET", "/api/tokens", *user, nil, &out); err != nil {
			return err
		}
		if *asJSON {
			return json.NewEncoder(stdout).Encode(out)
		}
		printTokens(stdout, *user, out.Tokens)
		return nil
	case "revoke":
		if err := c.do(ctx, "DELETE", "/api/tokens/"+url.PathEscape(id), *user, nil, nil); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "token %s revoked\n", id)
		return nil
	}
	return nil
}

func printTokens(w io.Writer, user string, list []hs.Token) {
	if len(list) == 0 {
		fmt.Fprintf(w, "%s has no tokens\n", user)
		return
	}
	now := time.Now()
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tKIND\tCREATED\tEXPIRES\tSTATE")
	for _, t := range list {
		state := "active"
		switch {
		case t.Revoked:
			state = "revoked"
		case !now.Before(t.Expires):
			state = "expired"
		}
		kind := "token"
		if t.Client != "" {
			kind = "oauth" // a client's sign-in: revoking ends its access and refresh tokens
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Name, kind, t.Created.Local().Format(time.DateOnly), t.Expires.Local().Format(time.DateOnly), state)
	}
	tw.Flush()
}
