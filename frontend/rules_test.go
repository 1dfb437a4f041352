package frontend_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
)

var update = flag.Bool("update", false, "rewrite src/lib/search-rules.json from hs.DefaultSearchRules")

// rulesFile holds the server's built-in search rules for the panel: its
// fallback when the page lacks them in its initial state (the app serves
// its rules there, exapp.PanelInfo), and the rules its unit tests use.
var rulesFile = filepath.Join("src", "lib", "search-rules.json")

// TestSearchRulesFile: the panel's copy is generated from the server's
// rules and never drifts from them. Regenerate with
// go test ./frontend -run TestSearchRulesFile -update (then npm run build).
func TestSearchRulesFile(t *testing.T) {
	want, err := json.MarshalIndent(hs.DefaultSearchRules(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	if *update {
		if err := os.WriteFile(rulesFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from hs.DefaultSearchRules(); run go test ./frontend -run TestSearchRulesFile -update, then npm run build\ngot:\n%s\nwant:\n%s", rulesFile, got, want)
	}
}

// TestSkipCodesTranslated: the panel says every code a skipped leg may
// carry in the user's language (format.js SKIP_REASONS, translated in
// l10n/); for other codes it shows the server's words.
func TestSkipCodesTranslated(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("src", "lib", "format.js"))
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range hs.SkipCodes {
		if !hasEntry(src, code+": () => t('") {
			t.Errorf("src/lib/format.js SKIP_REASONS does not translate %q", code)
		}
	}
}

// TestNoteCodesTranslated: the panel says every code a map's or Find
// similar's note may carry in the user's language (format.js VIZ_NOTES and
// SIMILAR_NOTES, translated in l10n/); for other codes it shows the
// server's words.
func TestNoteCodesTranslated(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("src", "lib", "format.js"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		table string
		codes []string
	}{
		{"VIZ_NOTES", hs.VizNoteCodes},
		{"SIMILAR_NOTES", hs.SimilarNoteCodes},
	} {
		_, rest, ok := bytes.Cut(src, []byte("\nconst "+c.table+" = {\n"))
		table, _, closed := bytes.Cut(rest, []byte("\n}\n"))
		if !ok || !closed {
			t.Errorf("src/lib/format.js has no %s table", c.table)
			continue
		}
		for _, code := range c.codes {
			if !hasEntry(append([]byte("\n"), table...), code+": (") {
				t.Errorf("src/lib/format.js %s does not translate %q", c.table, code)
			}
		}
	}
}

// hasEntry reports whether src has a line that starts, after its
// indentation (a tab, as eslint formats it, or spaces), with entry.
func hasEntry(src []byte, entry string) bool {
	return bytes.Contains(src, []byte("\n\t"+entry)) || bytes.Contains(src, []byte("\n  "+entry))
}
