package search

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
)

// split marks the weak matches among docs (docGroup.weak) and returns the
// others and the weak ones, each in rank order. A document is weak when
// only an uncalibrated semantic leg found it (it cannot tell a match from
// chance), or when its relevance is below the rules' WeakRelevance.
func (p *plan) split(docs []*docGroup, legs [3]legResult, weakBelow float64) (strong, weak []*docGroup) {
	sem := legs[0]
	uncalibrated := sem.wanted && sem.err == nil && !sem.base.ok && len(sem.hits) > 0
	var lexical map[ChunkKey]bool
	if uncalibrated {
		lexical = make(map[ChunkKey]bool)
		for _, r := range legs[1:] {
			for _, h := range r.hits {
				lexical[keyOf(h.Point)] = true
			}
		}
	}
	for _, d := range docs {
		switch {
		case uncalibrated && !lexical[d.best.Key]:
			d.weak = hs.WeakUncalibrated
		case d.relevance < weakBelow:
			d.weak = hs.WeakLowRelevance
		}
		if d.weak != "" {
			weak = append(weak, d)
		} else {
			strong = append(strong, d)
		}
	}
	return strong, weak
}

// window reports whether the search checks every match with Nextcloud
// before it cuts the page: to count them by facet, filter them by owner,
// sort them, or start the page further down.
func (p *plan) window() bool {
	return p.facets || p.owner != "" || p.sort == hs.SortModified || p.offset > 0
}

// counts are how many matches a search has, by kind.
type counts struct {
	total, weak int
	facets      *hs.Facets
}

// pageOf returns the page of documents the plan asks for, checked with
// Nextcloud, and the counts of the matches. Without a window (see
// plan.window) it checks only what the page needs, as before: the counts
// are then those of the index. With one it checks the first
// MaxResultWindow documents, and counts, filters, sorts and pages those.
func (s *Service) pageOf(ctx context.Context, user hs.UserID, p *plan, strong, weak []*docGroup) ([]*docGroup, hs.Verification, counts, error) {
	cands := strong
	if p.includeWeak {
		cands = slices.Concat(strong, weak)
	}
	if !p.window() {
		page, ver, err := s.page(ctx, user, cands, p.topK, p.filter.PathPrefix)
		c := counts{total: len(strong), weak: len(weak)}
		for _, d := range cands {
			switch {
			case !d.lost:
			case d.weak == "":
				c.total--
			default:
				c.weak--
			}
		}
		return page, ver, c, err
	}
	all := slices.Concat(strong, weak)
	all = all[:min(len(all), p.resultWindow)]
	checked, ver, err := s.verify(ctx, user, all, len(all), p.filter.PathPrefix)
	if err != nil {
		return nil, hs.Verification{}, counts{}, err
	}
	strong, weak = strong[:0:0], weak[:0:0]
	for _, d := range checked {
		if !p.ownerMatches(user, d) {
			continue
		}
		if d.weak == "" {
			strong = append(strong, d)
		} else {
			weak = append(weak, d)
		}
	}
	c := counts{total: len(strong), weak: len(weak)}
	if p.facets {
		c.facets = p.countFacets(user, strong, s.now())
	}
	if p.sort == hs.SortModified {
		byModified := func(a, b *docGroup) int { return b.modified().Compare(a.modified()) }
		slices.SortStableFunc(strong, byModified)
		slices.SortStableFunc(weak, byModified)
	}
	list := strong
	if p.includeWeak {
		list = slices.Concat(strong, weak)
	}
	page := list[min(p.offset, len(list)):min(p.offset+p.topK, len(list))]
	page, err = s.readPage(ctx, user, page)
	return page, ver, c, err
}

// ownerMatches reports whether d passes the request's owner choice.
func (p *plan) ownerMatches(user hs.UserID, d *docGroup) bool {
	switch p.owner {
	case hs.OwnerMe:
		return d.owner == user
	case hs.OwnerOthers:
		return d.owner != "" && d.owner != user
	}
	return true
}

// countFacets counts docs by type, MIME type, folder (below the path
// prefix), modification time before now and owner.
func (p *plan) countFacets(user hs.UserID, docs []*docGroup, now time.Time) *hs.Facets {
	types, mimes, folders, modified, owner := map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	prefix := strings.TrimRight(path.Clean("/"+p.filter.PathPrefix), "/")
	for _, d := range docs {
		types[string(d.meta.Type)]++
		if d.meta.MIME != "" {
			mimes[d.meta.MIME]++
		}
		folders[folderBelow(d.path, prefix)]++
		age := now.Sub(d.modified())
		for _, b := range []struct {
			value  string
			within time.Duration
		}{{hs.ModifiedDay, 24 * time.Hour}, {hs.ModifiedWeek, 7 * 24 * time.Hour}, {hs.ModifiedMonth, 30 * 24 * time.Hour}, {hs.ModifiedYear, 365 * 24 * time.Hour}} {
			if age <= b.within {
				modified[b.value]++
			}
		}
		if age > 365*24*time.Hour {
			modified[hs.ModifiedOlder]++
		}
		switch {
		case d.owner == "":
		case d.owner == user:
			owner[hs.OwnerMe]++
		default:
			owner[hs.OwnerOthers]++
		}
	}
	return &hs.Facets{Types: facetList(types), MIMEs: facetList(mimes), Folders: facetList(folders), Modified: facetList(modified), Owner: facetList(owner)}
}

// folderBelow returns the folder of p one level below prefix ("" or a
// folder without a trailing slash), or prefix itself ("/" at the top)
// for a file directly in it.
func folderBelow(p, prefix string) string {
	rest := strings.TrimPrefix(path.Clean("/"+p), prefix+"/")
	if i := strings.IndexByte(rest, '/'); i > 0 {
		return prefix + "/" + rest[:i]
	}
	return cmp.Or(prefix, "/")
}

// facetList returns the counts largest first, ties by value.
func facetList(m map[string]int) []hs.FacetCount {
	out := make([]hs.FacetCount, 0, len(m))
	for v, n := range m {
		out = append(out, hs.FacetCount{Value: v, Count: n})
	}
	slices.SortFunc(out, func(a, b hs.FacetCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Value, b.Value))
	})
	return out
}

// corrections returns the corrections the keyword leg looked up, and the
// query with them applied (each corrected word replaced where the query
// says it, in any case); none when there are none.
func (p *plan) corrections(legs [3]legResult) ([]hs.Correction, string) {
	kw := legs[1]
	if kw.sparse == nil || len(kw.sparse.corrected) == 0 {
		return nil, ""
	}
	fix := make(map[string]string, len(kw.sparse.corrected))
	var out []hs.Correction
	for _, c := range kw.sparse.corrected {
		fix[c[0]] = c[1]
		out = append(out, hs.Correction{From: c[0], To: c[1], Leg: hs.AlgorithmFuzzy})
	}
	var b strings.Builder
	last := 0
	eachWordAt(p.text, func(start, end int) {
		if to, ok := fix[analysis.Fold(p.text[start:end])]; ok {
			b.WriteString(p.text[last:start])
			b.WriteString(to)
			last = end
		}
	})
	b.WriteString(p.text[last:])
	return out, b.String()
}

// eachWordAt calls f with the byte range of each word of text, as
// eachWord cuts them.
func eachWordAt(text string, f func(start, end int)) {
	at := 0
	eachWord(text, func(tok string, _ bool) {
		i := strings.Index(text[at:], tok) + at
		f(i, i+len(tok))
		at = i + len(tok)
	})
}

// correctedIn returns the corrections whose corrected word the chunk
// holds (in its title, headings or text): those the keyword leg found it
// through.
func correctedIn(corr []hs.Correction, pt hs.Point) []hs.Correction {
	if len(corr) == 0 {
		return nil
	}
	words := map[string]bool{}
	eachWord(matchText(pt), func(tok string, _ bool) { words[analysis.Fold(tok)] = true })
	var out []hs.Correction
	for _, c := range corr {
		if words[c.To] {
			out = append(out, c)
		}
	}
	return out
}

// readPage reads the chunks of the page's documents that the legs left
// without text. A chunk gone since retrieval (its file changed
// meanwhile) is left out, and a document left without chunks too.
func (s *Service) readPage(ctx context.Context, user hs.UserID, page []*docGroup) ([]*docGroup, error) {
	if s.chunks == nil {
		return page, nil
	}
	var hits []hs.Hit
	for _, d := range page {
		for _, c := range d.chunks {
			if c.Chunk.Text == "" { // not read yet, or empty: read again
				hits = append(hits, hs.Hit{Point: c})
			}
		}
	}
	if len(hits) == 0 {
		return page, nil
	}
	read, err := s.readChunks(ctx, user, hits)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	got := make(map[ChunkKey]hs.Chunk, len(read))
	for _, h := range read {
		got[keyOf(h.Point)] = h.Point.Chunk
	}
	kept := make([]*docGroup, 0, len(page))
	for _, d := range page {
		chunks := d.chunks[:0]
		for _, c := range d.chunks {
			if c.Chunk.Text == "" {
				var ok bool
				if c.Chunk, ok = got[keyOf(c)]; !ok {
					continue
				}
			}
			chunks = append(chunks, c)
		}
		if d.chunks = chunks; len(chunks) > 0 {
			kept = append(kept, d)
		}
	}
	return kept, nil
}
