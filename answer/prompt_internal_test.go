package answer

import (
	"slices"
	"strings"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
)

func TestGate(t *testing.T) {
	tests := []struct {
		name    string
		pieces  []string
		out     string
		refused bool
	}{
		{"answer", []string{"Back", "ups at two [1]"}, "Backups at two [1]", false},
		{"refusal in pieces", []string{" NOT", "_IN", "_FILES", ". Sorry."}, "", true},
		{"starts like the marker", []string{"NOT", " really"}, "NOT really", false},
		{"stops short of the marker", []string{"NOT_IN"}, "NOT_IN", false},
		{"marker later", []string{"Yes. ", "NOT_IN_FILES"}, "Yes. NOT_IN_FILES", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got strings.Builder
			g := &gate{out: func(s string) { got.WriteString(s) }}
			for _, p := range tt.pieces {
				g.write(p)
			}
			g.end()
			if got.String() != tt.out || g.refused != tt.refused || g.text.String() != tt.out {
				t.Errorf("out %q refused %v, want %q %v", got.String(), g.refused, tt.out, tt.refused)
			}
		})
	}
}

func TestCite(t *testing.T) {
	passages := []hs.Passage{{N: 1, FileID: 10}, {N: 2, FileID: 20}, {N: 3, FileID: 10}}
	got := cite("A [2]. B [1, 3][2]; C [0] [4] [99] [x] [2;1].", passages)
	var ns []int
	for _, c := range got {
		ns = append(ns, c.N)
	}
	if !slices.Equal(ns, []int{2, 1, 3}) || got[1].FileID != 10 {
		t.Errorf("citations %+v", got)
	}
	if c := cite("no citation", passages); c == nil || len(c) != 0 {
		t.Errorf("no citations: %#v, want an empty list", c)
	}
}

func TestEstimateTokensErrsHigh(t *testing.T) {
	for _, s := range []string{"Backups happen nightly at two.", "バックアップは毎晩二時に行われます。", "Größenänderung des Clusters"} {
		words := len(strings.Fields(s))
		if n := estimateTokens(s); n < words {
			t.Errorf("estimateTokens(%q) = %d, below its %d words", s, n, words)
		}
	}
}
