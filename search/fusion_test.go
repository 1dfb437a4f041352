package search_test

import (
	"math"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
	"github.com/hybrid-search/hybridsearch/search"
)

const eps = 1e-12

func key(file, no int) search.ChunkKey {
	return search.ChunkKey{File: hs.FileID(file), No: no}
}

func list(leg string, w float64, keysAndScores ...any) search.LegList {
	l := search.LegList{Leg: leg, Weight: w}
	for i := 0; i < len(keysAndScores); i += 2 {
		l.Keys = append(l.Keys, keysAndScores[i].(search.ChunkKey))
		l.Scores = append(l.Scores, keysAndScores[i+1].(float64))
		l.Match = append(l.Match, min(max(keysAndScores[i+1].(float64), 0), 1))
	}
	return l
}

// want is one expected fused chunk.
type want struct {
	key   search.ChunkKey
	score float64
}

func checkFused(t *testing.T, got []search.Fused, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		t.Fatalf("got %d fused chunks %+v, want %d", len(got), got, len(wants))
	}
	for i, w := range wants {
		if got[i].Key != w.key || math.Abs(got[i].Score-w.score) > eps {
			t.Errorf("fused[%d] = %v %.15f, want %v %.15f", i, got[i].Key, got[i].Score, w.key, w.score)
		}
	}
}

var (
	sem = hs.AlgorithmSemantic
	kw  = hs.AlgorithmKeyword
	fz  = hs.AlgorithmFuzzy
)

func TestRRF(t *testing.T) {
	a, b, c, d := key(1, 0), key(2, 0), key(3, 0), key(3, 1)
	tests := []struct {
		name  string
		lists []search.LegList
		want  []want
	}{
		{
			name: "weighted sum of 1/(60+rank)",
			lists: []search.LegList{
				list(sem, 0.5, a, 0.9, b, 0.8),
				list(kw, 0.3, b, 12.0, c, 3.0),
				list(fz, 0.2, c, 7.0, a, 1.0),
			},
			want: []want{
				{b, 0.5/62 + 0.3/61},
				{a, 0.5/61 + 0.2/62},
				{c, 0.3/62 + 0.2/61},
			},
		},
		{
			name:  "raw scores do not matter, ranks do",
			lists: []search.LegList{list(kw, 1, a, 1000.0, b, 0.001)},
			want:  []want{{a, 1.0 / 61}, {b, 1.0 / 62}},
		},
		{
			name: "ties broken by file id, then chunk number",
			lists: []search.LegList{
				list(sem, 0.5, d, 0.9, c, 0.8),
				list(kw, 0.5, c, 5.0, d, 4.0),
			},
			want: []want{{c, 0.5/62 + 0.5/61}, {d, 0.5/61 + 0.5/62}},
		},
		{
			name:  "a zero weight adds nothing",
			lists: []search.LegList{list(sem, 0, a, 0.9), list(kw, 0.4, b, 1.0)},
			want:  []want{{b, 0.4 / 61}, {a, 0}},
		},
		{name: "no lists", lists: nil, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkFused(t, search.RRF(tt.lists, search.RRFK, false), tt.want)
		})
	}
}

func TestLinear(t *testing.T) {
	a, b, c := key(1, 0), key(2, 0), key(3, 0)
	tests := []struct {
		name  string
		lists []search.LegList
		want  []want
	}{
		{
			name: "weighted sum of matches",
			lists: []search.LegList{
				matchList(sem, 0.5, a, 0.9, b, 0.7, c, 0.5),
				matchList(kw, 0.5, c, 0.8, b, 0.2),
			},
			want: []want{{c, 0.65}, {a, 0.45}, {b, 0.45}},
		},
		{
			name:  "a leg's best is not promoted to 1",
			lists: []search.LegList{matchList(fz, 0.2, a, 0.3, b, 0.3)},
			want:  []want{{a, 0.06}, {b, 0.06}},
		},
		{name: "no lists", lists: nil, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := search.Linear(tt.lists, false)
			checkFused(t, got, tt.want)
			for _, f := range got {
				if math.Abs(f.Relevance-f.Score) > eps {
					t.Errorf("relevance %v of %v differs from its linear score %v", f.Relevance, f.Key, f.Score)
				}
			}
		})
	}
}

// matchList is list with the scores given as matches (raw score = match).
func matchList(leg string, w float64, keysAndMatches ...any) search.LegList {
	return list(leg, w, keysAndMatches...)
}

func TestRelevanceIsTheBlend(t *testing.T) {
	a, b := key(1, 0), key(2, 0)
	lists := []search.LegList{matchList(sem, 0.6, a, 0.5, b, 0.9), matchList(kw, 0.4, b, 0.25)}
	for _, f := range search.RRF(lists, search.RRFK, false) {
		want := map[search.ChunkKey]float64{a: 0.3, b: 0.64}[f.Key]
		if math.Abs(f.Relevance-want) > eps {
			t.Errorf("RRF relevance of %v = %v, want Σ w·match = %v", f.Key, f.Relevance, want)
		}
	}
}

func TestExplain(t *testing.T) {
	a, b := key(1, 0), key(2, 3)
	lists := []search.LegList{list(sem, 0.5, a, 0.9, b, 0.4), list(kw, 0.3, b, 7.5)}
	for name, fused := range map[string][]search.Fused{
		"rrf":    search.RRF(lists, search.RRFK, true),
		"linear": search.Linear(lists, true),
	} {
		got := map[search.ChunkKey]map[string]hs.LegScore{}
		for _, f := range fused {
			got[f.Key] = f.Legs
		}
		if l := got[a]; len(l) != 1 || l[sem] != (hs.LegScore{Rank: 1, Score: 0.9, Match: 0.9, Weight: 0.5}) {
			t.Errorf("%s: explain of a = %v", name, l)
		}
		if l := got[b]; len(l) != 2 || l[sem] != (hs.LegScore{Rank: 2, Score: 0.4, Match: 0.4, Weight: 0.5}) || l[kw] != (hs.LegScore{Rank: 1, Score: 7.5, Match: 1, Weight: 0.3}) {
			t.Errorf("%s: explain of b = %v", name, l)
		}
	}
	if f := search.RRF(lists, search.RRFK, false); f[0].Legs != nil {
		t.Errorf("RRF without explain filled Legs: %v", f[0].Legs)
	}
}

// TestIdentifierBoost is the case plain RRF gets wrong: the chunk with the
// identifier is only found by the keyword leg, while a chunk without it is
// liked by all three legs.
func TestIdentifierBoost(t *testing.T) {
	exact, similar, other := key(40, 0), key(7, 0), key(8, 2)
	lists := []search.LegList{
		list(sem, 0.5, similar, 0.8, other, 0.7),
		list(kw, 0.3, exact, 9.0, similar, 4.0),
		list(fz, 0.2, similar, 3.0, other, 2.0, exact, 1.0),
	}
	for _, method := range []struct {
		name  string
		fused []search.Fused
	}{
		{"rrf", search.RRF(lists, search.RRFK, false)},
		{"linear", search.Linear(lists, false)},
	} {
		t.Run(method.name, func(t *testing.T) {
			fused := method.fused
			if fused[0].Key == exact {
				t.Fatalf("plain %s already ranks the identifier first; the case proves nothing", method.name)
			}
			for i := range fused {
				if fused[i].Key == exact {
					fused[i].Match.Identifiers = 1
				}
			}
			search.Order(fused)
			if fused[0].Key != exact {
				t.Errorf("boosted %s ranks %v first, want %v", method.name, fused[0].Key, exact)
			}
			if fused[1].Key != similar {
				t.Errorf("boosted %s ranks %v second, want the rest by score (%v)", method.name, fused[1].Key, similar)
			}
		})
	}
}

func TestOrder(t *testing.T) {
	fs := []search.Fused{
		{Key: key(1, 0), Score: 0.9},
		{Key: key(2, 0), Score: 0.1, Match: search.Match{Phrases: 1}},
		{Key: key(3, 0), Score: 0.2, Match: search.Match{Identifiers: 1}},
		{Key: key(4, 0), Score: 0.1, Match: search.Match{Identifiers: 2}},
		{Key: key(0, 5), Score: 0.9},
		{Key: key(0, 1), Score: 0.9},
	}
	search.Order(fs)
	want := []search.ChunkKey{key(4, 0), key(3, 0), key(2, 0), key(0, 1), key(0, 5), key(1, 0)}
	for i, w := range want {
		if fs[i].Key != w {
			t.Errorf("Order[%d] = %v, want %v", i, fs[i].Key, w)
		}
	}
}

func TestSingle(t *testing.T) {
	a, b, c := key(1, 0), key(2, 0), key(0, 0)
	got := search.Single(list(fz, 1, a, 5.0, b, 3.0, c, 3.0), true)
	checkFused(t, got, []want{{a, 5}, {c, 3}, {b, 3}})
	if l := got[2].Legs[fz]; l.Rank != 2 {
		t.Errorf("Single explain keeps the leg's rank: got %v, want rank 2", l)
	}
}

func TestAutoWeights(t *testing.T) {
	tests := []struct {
		query string
		want  hs.Weights
	}{
		{"PII-2024-0042", hs.Weights{Semantic: 0.2, Keyword: 0.55, Fuzzy: 0.25}},
		{"30 CFR 75.1725", hs.Weights{Semantic: 0.2, Keyword: 0.55, Fuzzy: 0.25}},
		{"how do I rotate the api keys?", hs.Weights{Semantic: 0.55, Keyword: 0.3, Fuzzy: 0.15}},
		{"wie funktioniert die Abrechnung", hs.Weights{Semantic: 0.55, Keyword: 0.3, Fuzzy: 0.15}},
		{"kubernetes upgrade", hs.DefaultWeights},
	}
	for _, tt := range tests {
		got := search.AutoWeights(analysis.ParseQuery(tt.query).Shape)
		if got != tt.want {
			t.Errorf("AutoWeights(shape of %q) = %+v, want %+v", tt.query, got, tt.want)
		}
		if sum := got.Semantic + got.Keyword + got.Fuzzy; math.Abs(sum-1) > 1e-9 {
			t.Errorf("AutoWeights(shape of %q) sums to %v, want 1", tt.query, sum)
		}
	}
}

// TestRRFTies: chunks a leg scores equally share a rank, so the order a
// store lists them in does not matter; the key breaks the tie.
func TestRRFTies(t *testing.T) {
	a, b, c := key(1, 0), key(2, 0), key(3, 0)
	for _, l := range []search.LegList{list(kw, 1, c, 2.0, b, 1.0, a, 1.0), list(kw, 1, c, 2.0, a, 1.0, b, 1.0)} {
		checkFused(t, search.RRF([]search.LegList{l}, search.RRFK, false), []want{{c, 1.0 / 61}, {a, 1.0 / 62}, {b, 1.0 / 62}})
	}
}
