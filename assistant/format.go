package assistant

import (
	"fmt"
	"strings"
	"unicode/utf8"

	hs "github.com/hybrid-search/hybridsearch"
)

// excerptChars is the most characters of an excerpt shown per result.
const excerptChars = 280

// FormatResults writes a search result as the Assistant shows it: a
// numbered list of titles with paths, an excerpt and the link. The
// Assistant shows text outputs as plain text (some versions render
// Markdown), so the text reads well both ways, and text from documents
// cannot form Markdown links (unlink).
func FormatResults(query string, res hs.SearchResult) string {
	var b strings.Builder
	switch n := len(res.Results); n {
	case 0:
		fmt.Fprintf(&b, "No files match “%s”.", oneLine(query))
	case 1:
		fmt.Fprintf(&b, "1 file matches “%s”:", oneLine(query))
	default:
		fmt.Fprintf(&b, "%d files match “%s”:", n, oneLine(query))
	}
	for i, d := range res.Results {
		fmt.Fprintf(&b, "\n\n%d. %s — %s", i+1, unlink(oneLine(d.Title)), unlink(oneLine(d.Path)))
		if d.Excerpt.Page > 0 {
			fmt.Fprintf(&b, ", page %d", d.Excerpt.Page)
		}
		if ex := unlink(shorten(d.Excerpt.Text, excerptChars)); ex != "" {
			b.WriteString("\n   " + ex)
		}
		if d.Link != "" {
			b.WriteString("\n   " + d.Link)
		}
	}
	for _, sk := range res.Skipped {
		fmt.Fprintf(&b, "\n\n(%s search was left out: %s)", sk.Leg, sk.Reason)
	}
	return b.String()
}

// FormatAnswer writes an answer as the Assistant shows it: the text with
// its [N] citations, then the cited sources with their links; an answer
// the files do not hold lists the passages that were read instead.
func FormatAnswer(a hs.Answer) string {
	var b strings.Builder
	b.WriteString(unlink(strings.TrimSpace(a.Text)))
	if a.Answered && len(a.Citations) > 0 {
		b.WriteString("\n\nSources:")
		for _, c := range a.Citations {
			fmt.Fprintf(&b, "\n[%d] %s — %s", c.N, unlink(oneLine(c.Title)), unlink(oneLine(c.Path)))
			if c.Page > 0 {
				fmt.Fprintf(&b, ", page %d", c.Page)
			}
			if c.Link != "" {
				b.WriteString("\n    " + c.Link)
			}
		}
	}
	if !a.Answered && len(a.Passages) > 0 {
		b.WriteString("\n\nPassages read:")
		seen := map[hs.FileID]bool{}
		for _, p := range a.Passages {
			if seen[p.FileID] {
				continue
			}
			seen[p.FileID] = true
			b.WriteString("\n- " + unlink(oneLine(p.Title)) + " — " + unlink(oneLine(p.Path)))
		}
	}
	return b.String()
}

// citedFiles returns the ids of the files an answer cites, once each.
func citedFiles(a hs.Answer) []int64 {
	var out []int64
	seen := map[hs.FileID]bool{}
	for _, c := range a.Citations {
		if !seen[c.FileID] {
			seen[c.FileID] = true
			out = append(out, int64(c.FileID))
		}
	}
	return out
}

// foundFiles returns the ids of the files a search found that Nextcloud
// confirmed the user can read.
func foundFiles(res hs.SearchResult) []int64 {
	unverified := map[hs.FileID]bool{}
	for _, id := range res.Verification.Unverified {
		unverified[id] = true
	}
	var out []int64
	for _, d := range res.Results {
		if !unverified[d.FileID] {
			out = append(out, int64(d.FileID))
		}
	}
	return out
}

// shorten puts text on one line and cuts it to at most n characters at a
// word boundary, with an ellipsis.
func shorten(text string, n int) string {
	s := strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n]
	if i := strings.LastIndexByte(string(r), ' '); i > n/2 {
		return string(r)[:i] + " …"
	}
	return string(r) + "…"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// unlinker breaks the Markdown constructs that would turn text from a
// document or the model into a link or an image with text of its choice
// ("[Verify your account](https://…)", "![](https://…)", "<https://…>").
// A bare address stays as it is, visibly an address.
var unlinker = strings.NewReplacer("](", "] (", "![", "! [", "<http", "< http")

func unlink(s string) string { return unlinker.Replace(s) }
