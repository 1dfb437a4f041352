package hybridsearch_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// readmeMaxLines is how long the README may grow: it says what the app is,
// how to try and install it, and links to docs/ for the rest.
const readmeMaxLines = 200

// TestReadmeStaysShort keeps the README a front page, not the manual.
func TestReadmeStaysShort(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, at most %d: move details to docs/ and link them", n, readmeMaxLines)
	}
}

// TestDocLinks checks that every relative link in the README, CONTRIBUTING,
// CHANGELOG and docs/ names a file of the repository and, with a #fragment,
// a heading of that file (as GitHub makes anchors).
func TestDocLinks(t *testing.T) {
	files := []string{"README.md", "CONTRIBUTING.md", "CHANGELOG.md"}
	docs, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, docs...)
	anchors := map[string]map[string]bool{} // file -> its heading anchors
	anchorsOf := func(file string) (map[string]bool, error) {
		if a, ok := anchors[file]; ok {
			return a, nil
		}
		a, err := headingAnchors(file)
		anchors[file] = a
		return a, err
	}
	checked := 0
	for _, file := range files {
		links, err := markdownLinks(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range links {
			if isExternal(l.target) {
				continue
			}
			checked++
			path, frag, _ := strings.Cut(l.target, "#")
			target := file
			if path != "" {
				target = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s:%d: link %q: %s does not exist", file, l.line, l.target, target)
					continue
				}
			}
			if frag == "" || !strings.HasSuffix(target, ".md") {
				continue
			}
			a, err := anchorsOf(target)
			if err != nil {
				t.Fatal(err)
			}
			if !a[frag] {
				t.Errorf("%s:%d: link %q: %s has no heading with the anchor #%s", file, l.line, l.target, target, frag)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d relative links checked: is the link pattern still right?", checked)
	}
}

// TestSourceCitesDocsInRepo checks that the documents Go comments cite are
// in the repository, and that each cited section of the protocol notes
// (docs/nextcloud-protocol.md §N) exists there.
func TestSourceCitesDocsInRepo(t *testing.T) {
	sections, err := headingSections(filepath.Join("docs", "nextcloud-protocol.md"))
	if err != nil {
		t.Fatal(err)
	}
	docRef := regexp.MustCompile(`\bdocs/[\w./-]+\.md\b`)
	sectionRef := regexp.MustCompile(`nextcloud-protocol\.md §(\d+(?:\.\d+)*)`)
	cites := 0
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			_, comment, ok := strings.Cut(line, "//")
			if !ok {
				continue
			}
			for _, ref := range docRef.FindAllString(comment, -1) {
				cites++
				if _, err := os.Stat(filepath.FromSlash(ref)); err != nil {
					t.Errorf("%s:%d: cites %s, which is not in the repository", path, i+1, ref)
				}
			}
			for _, m := range sectionRef.FindAllStringSubmatch(comment, -1) {
				if !sections[m[1]] {
					t.Errorf("%s:%d: cites nextcloud-protocol.md §%s, which docs/nextcloud-protocol.md does not have", path, i+1, m[1])
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if cites == 0 {
		t.Error("no Go comment cites a document under docs/: is the pattern still right?")
	}
}

type mdLink struct {
	line   int
	target string
}

var (
	linkPattern = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	codeSpan    = regexp.MustCompile("`[^`]*`")
)

// markdownLinks returns the inline link targets of a Markdown file,
// leaving out fenced code blocks and code spans.
func markdownLinks(file string) ([]mdLink, error) {
	var out []mdLink
	err := eachProseLine(file, func(n int, line string) {
		line = codeSpan.ReplaceAllString(line, "")
		for _, m := range linkPattern.FindAllStringSubmatch(line, -1) {
			out = append(out, mdLink{line: n, target: m[1]})
		}
	})
	return out, err
}

// headingAnchors returns the anchors GitHub gives a Markdown file's
// headings: lower case, punctuation dropped, spaces made hyphens, and
// -1, -2, … on repeats.
func headingAnchors(file string) (map[string]bool, error) {
	anchors := map[string]bool{}
	seen := map[string]int{}
	err := eachProseLine(file, func(_ int, line string) {
		text, ok := headingText(line)
		if !ok {
			return
		}
		a := slug(text)
		if n := seen[a]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	})
	return anchors, err
}

// headingSections returns the section numbers ("3", "3.1") that start the
// headings of a Markdown file.
func headingSections(file string) (map[string]bool, error) {
	sections := map[string]bool{}
	num := regexp.MustCompile(`^(\d+(?:\.\d+)*)\.?\s`)
	err := eachProseLine(file, func(_ int, line string) {
		if text, ok := headingText(line); ok {
			if m := num.FindStringSubmatch(text); m != nil {
				sections[m[1]] = true
			}
		}
	})
	return sections, err
}

func headingText(line string) (string, bool) {
	if !strings.HasPrefix(line, "#") {
		return "", false
	}
	text := strings.TrimLeft(line, "#")
	if len(line)-len(text) > 6 || !strings.HasPrefix(text, " ") {
		return "", false
	}
	return strings.TrimSpace(text), true
}

func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// eachProseLine calls fn with each line of a Markdown file outside fenced
// code blocks, numbered from 1.
func eachProseLine(file string, fn func(n int, line string)) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	fenced := false
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			fn(n, line)
		}
	}
	return sc.Err()
}

func isExternal(target string) bool {
	for _, p := range []string{"http://", "https://", "mailto:"} {
		if strings.HasPrefix(target, p) {
			return true
		}
	}
	return false
}
