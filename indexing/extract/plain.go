package extract

import (
	"strconv"
	"strings"
)

// plain extracts a plain text file as it is, converted to UTF-8.
func (j *job) plain() error {
	s, err := j.text()
	if err != nil {
		return err
	}
	return j.b.raw(s)
}

// text decodes j.data as text, or fails with EINVALID "not text".
func (j *job) text() (string, error) {
	s, err := decodeText(j.data)
	if err != nil {
		return "", j.invalid("%v", err)
	}
	return s, nil
}

// markdown keeps Markdown as it is, since its headings already are the
// output's heading lines, but drops YAML front matter, whose title becomes
// Title.
func (j *job) markdown() error {
	s, err := j.text()
	if err != nil {
		return err
	}
	s = strings.TrimPrefix(s, "\uFEFF")
	front, body, ok := frontMatter(s)
	if ok {
		j.title = frontMatterTitle(front)
		s = body
	}
	return j.b.raw(s)
}

// maxFrontMatter bounds how far the closing line of front matter is looked
// for.
const maxFrontMatter = 64 << 10

// frontMatter splits YAML front matter ("---" line, YAML, "---" or "..."
// line) from the start of a Markdown document.
func frontMatter(s string) (front, body string, ok bool) {
	s = strings.ReplaceAll(s[:min(len(s), maxFrontMatter)], "\r\n", "\n") + s[min(len(s), maxFrontMatter):]
	rest, ok := strings.CutPrefix(s, "---\n")
	if !ok {
		return "", s, false
	}
	for off := 0; off < len(rest) && off < maxFrontMatter; {
		line, _, _ := strings.Cut(rest[off:], "\n")
		if t := strings.TrimRight(line, " \t"); t == "---" || t == "..." {
			end := min(off+len(line)+1, len(rest))
			return rest[:off], rest[end:], true
		}
		off += len(line) + 1
	}
	return "", s, false
}

// frontMatterTitle returns the top-level "title:" value of YAML front
// matter, unquoted.
func frontMatterTitle(front string) string {
	for line := range strings.SplitSeq(front, "\n") {
		v, ok := strings.CutPrefix(line, "title:")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch {
		case strings.HasPrefix(v, `"`):
			if u, err := strconv.Unquote(v); err == nil {
				return u
			}
			return strings.Trim(v, `"`)
		case strings.HasPrefix(v, "'") && strings.HasSuffix(v, "'") && len(v) >= 2:
			return strings.ReplaceAll(v[1:len(v)-1], "''", "'")
		}
		if i := strings.Index(v, " #"); i >= 0 {
			v = strings.TrimSpace(v[:i])
		}
		return v
	}
	return ""
}
