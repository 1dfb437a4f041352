package ncsim

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// sanitizeNoteName removes what NoteUtil::sanitisePath removes.
func sanitizeNoteName(str string) string {
	str = strings.Map(func(r rune) rune {
		if strings.ContainsRune(`*|/\:"<>?`, r) {
			return -1
		}
		return r
	}, str)
	str = leadingDotsSpaces.ReplaceAllString(str, "")
	return strings.TrimSpace(str)
}

var (
	leadingDotsSpaces = regexp.MustCompile(`(?m)^[.\s]+`)
	numberSuffix      = regexp.MustCompile(`\s\((\d+)\)$`)
)

// safeTitle follows NoteUtil::getSafeTitle: first line, sanitized, at most
// 100 characters, "New note" when empty.
func safeTitle(title string) string {
	title = sanitizeNoteName(title)
	title, _, _ = strings.Cut(title, "\n")
	title = strings.TrimSpace(title)
	title = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\r' || r == '\v' || r == '\f' {
			return ' '
		}
		return r
	}, title)
	if utf8.RuneCountInString(title) > 100 {
		title = string([]rune(title)[:100])
	}
	if title == "" {
		title = "New note"
	}
	return title
}

// categoryPath is the folder of category below the notes folder.
func categoryPath(notes, category string) string {
	p := notes
	for _, part := range strings.Split(category, "/") {
		if part = sanitizeNoteName(part); part != "" {
			p = joinPath(p, part)
		}
	}
	return p
}

// noteFileName follows NoteUtil::generateFileName: title+suffix, numbered
// " (2)", " (3)"... when another node has that name. Callers hold files.mu.
func (fs *filesState) noteFileName(uid, folder, title, suffix string, id int64) string {
	title = safeTitle(title)
	for {
		name := title + suffix
		e, exists := fs.resolve(uid, joinPath(folder, name))
		if !exists || e.n.id == id {
			return name
		}
		next := 2
		if m := numberSuffix.FindStringSubmatch(title); m != nil {
			fmt.Sscan(m[1], &next)
			next++
			title = strings.TrimSuffix(title, m[0])
		}
		suffixText := fmt.Sprintf(" (%d)", next)
		if r := []rune(title); len(r) > 100-len(suffixText) {
			title = string(r[:100-len(suffixText)])
		}
		title += suffixText
	}
}
