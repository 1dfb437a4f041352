package search

import (
	"math"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
)

func TestMatchFuzzy(t *testing.T) {
	tests := []struct {
		name  string
		words []string
		text  string
		share float64
		near  map[string]string
	}{
		{"exact", []string{"kubernetes"}, "Kubernetes upgrade", 1, nil},
		{"one edit", []string{"kuberntes"}, "The Kubernetes upgrade", 1 - 1.0/10, map[string]string{"kuberntes": "kubernetes"}},
		{"two edits from ten letters", []string{"retrijevals"}, "retrieval of text", 1 - 2.0/12, map[string]string{"retrijevals": "retrieval"}},
		{"two edits below ten letters are too many", []string{"stations"}, "citations and notes", 0, nil},
		{"half the words", []string{"kubernetes", "zzqxxv"}, "kubernetes", 0.5, nil},
		{"random letters", []string{"zzqxxv", "nothingmatches"}, "nothing matches this text at all", 0, nil},
		{"short words only exact", []string{"cat"}, "car cart cat", 1, nil},
		{"non-ASCII folded", []string{"strasse"}, "Die Straße ist lang", 1, nil},
		{"numbers exact only", []string{"2024"}, "in 2025", 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var words []fuzzyWord
			for _, w := range tt.words {
				words = append(words, newFuzzyWord(w, 1))
			}
			m := matchFuzzy(words, tt.text)
			if math.Abs(m.share-tt.share) > 1e-9 {
				t.Errorf("matchFuzzy(%v, %q) share = %v, want %v", tt.words, tt.text, m.share, tt.share)
			}
			for w, want := range tt.near {
				if m.near[w] != want {
					t.Errorf("near[%q] = %q, want %q", w, m.near[w], want)
				}
			}
		})
	}
}

func TestCorrections(t *testing.T) {
	words := []fuzzyWord{newFuzzyWord("retreival", 1)}
	hit := func(text string) hs.Hit { return hs.Hit{Point: hs.Point{Chunk: hs.Chunk{Text: text}}} }
	hits, matches := verifyFuzzy(words, []hs.Hit{
		hit("retrieval systems"),
		hit("nothing near here"),
		hit("retrieval and retrieve"),
		hit("retrieve it"),
	}, 0)
	if len(hits) != 2 || len(matches) != 2 {
		t.Fatalf("verifyFuzzy kept %d hits, want 2 (\"retrieve\" is two edits from \"retreival\", too many below ten letters)", len(hits))
	}
	if got := corrections(matches); got["retreival"] != "retrieval" {
		t.Errorf("corrections = %v, want retreival → retrieval (fewest edits, most chunks)", got)
	}
}

func TestVerifyFuzzyMinShare(t *testing.T) {
	words := []fuzzyWord{newFuzzyWord("wdrhe", 1), newFuzzyWord("mqstrxummy", 1), newFuzzyWord("sizad", 1)}
	hit := hs.Hit{Point: hs.Point{Chunk: hs.Chunk{Text: "files of any size, sized to fit"}}}
	if kept, _ := verifyFuzzy(words, []hs.Hit{hit}, 0); len(kept) != 1 {
		t.Errorf("without a minimum share the near word keeps the chunk")
	}
	if kept, _ := verifyFuzzy(words, []hs.Hit{hit}, allUnknownMinShare); len(kept) != 0 {
		t.Errorf("one near word of three random ones kept the chunk")
	}
}
