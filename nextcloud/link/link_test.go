package link_test

import (
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud/link"
)

func TestDocument(t *testing.T) {
	tests := []struct {
		name string
		base string
		meta hs.FileMeta
		want string
	}{
		{"file", "https://cloud.example.org", hs.FileMeta{ID: 12, Type: hs.DocFile}, "https://cloud.example.org/index.php/f/12"},
		{"note", "https://cloud.example.org", hs.FileMeta{ID: 7, Type: hs.DocNote}, "https://cloud.example.org/index.php/apps/notes/note/7"},
		{"base with a path and a slash", "https://example.org/nc/", hs.FileMeta{ID: 3}, "https://example.org/nc/index.php/f/3"},
		{"relative", "", hs.FileMeta{ID: 12}, "/index.php/f/12"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := link.Document(tt.base, tt.meta); got != tt.want {
				t.Errorf("Document(%q, %+v) = %q, want %q", tt.base, tt.meta, got, tt.want)
			}
		})
	}
}
