package search

import (
	"path"
	"strings"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud/link"
)

// maxMore is how many matching chunks besides the best one a document
// result shows.
const maxMore = 3

// docGroup is one document in the ranking: its chunks best first.
type docGroup struct {
	meta      hs.FileMeta
	best      Fused
	chunks    []hs.Point // the best chunk, then up to maxMore more
	relevance float64
	path      string // the path as the acting user sees it, set by verify
	// Set by verify from Nextcloud's answer: the owner, the modification
	// time, and whether the user lost the file.
	owner   hs.UserID
	changed time.Time
	lost    bool
	weak    string // why it is a weak match (hs.Weak*); "" if it is not
}

// modified is when the document changed last: as Nextcloud said, or as
// the index has it.
func (d *docGroup) modified() time.Time {
	if !d.changed.IsZero() {
		return d.changed
	}
	return d.meta.Modified
}

// rank fuses the legs' lists, applies the identifier and phrase boosts and
// groups the chunks per document, best document first. Every document of
// every list is returned, so the page can be refilled after access checks.
func (p *plan) rank(lists []LegList, legs [3]legResult) []*docGroup {
	if len(lists) == 0 {
		return nil
	}
	points := make(map[ChunkKey]*hs.Point)
	for _, r := range legs {
		for i := range r.hits {
			points[keyOf(r.hits[i].Point)] = &r.hits[i].Point
		}
	}
	var fused []Fused
	switch {
	case p.fusion == "":
		fused = Single(lists[0], p.explain)
	case p.fusion == hs.FusionLinear:
		fused = Linear(lists, p.explain)
	default:
		fused = RRF(lists, RRFK, p.explain)
	}
	if p.verbatim() {
		v := newVerbatim(p.query, p.match, legs[1].sparse)
		for i := range fused {
			f := &fused[i]
			f.Match = p.match.chunkMatch(*points[f.Key])
			if c := v.cap(f.Match); c < f.Relevance {
				f.Relevance, f.capped = c, true
			}
		}
		Order(fused)
	}
	var docs []*docGroup
	at := make(map[hs.FileID]*docGroup)
	for _, f := range fused {
		pt := points[f.Key]
		d := at[f.Key.File]
		if d == nil {
			d = &docGroup{meta: pt.File, best: f, relevance: min(max(f.Relevance, 0), 1)}
			at[f.Key.File] = d
			docs = append(docs, d)
		}
		if len(d.chunks) <= maxMore {
			d.chunks = append(d.chunks, *pt)
		}
	}
	return docs
}

// render turns the page's documents into results.
func (s *Service) render(p *plan, page []*docGroup) []hs.DocumentResult {
	out := make([]hs.DocumentResult, 0, len(page))
	weakBelow := s.Rules().WeakRelevance
	for _, d := range page {
		r := hs.DocumentResult{
			FileID:    d.meta.ID,
			Title:     titleFor(d),
			Path:      d.path, // as the searching user sees it (verify)
			MIME:      d.meta.MIME,
			Type:      d.meta.Type,
			Modified:  d.modified(),
			Link:      link.Document(s.baseURL, d.meta),
			Relevance: d.relevance,
			Weak:      d.weak != "",
			Owner:     d.owner,
			Excerpt:   p.excerpt(d.chunks[0]),
		}
		r.TitleHighlights = p.match.highlights(r.Title)
		for _, c := range d.chunks[1:] {
			r.More = append(r.More, p.excerpt(c))
		}
		if p.explain {
			r.Explain = &hs.Explanation{
				Legs:            d.best.Legs,
				Fused:           d.best.Score,
				IdentifierBoost: d.best.Match.Identifiers > 0,
				Capped:          d.best.capped,
				PhraseBoost:     d.best.Match.Phrases > 0,
				Corrected:       correctedIn(p.corrected, d.chunks[0]),
				WeakReason:      d.weak,
			}
			if r.Explain.Legs == nil {
				r.Explain.Legs = map[string]hs.LegScore{}
			}
			if d.weak == hs.WeakLowRelevance {
				r.Explain.WeakThreshold = weakBelow
			}
			if sem, ok := r.Explain.Legs[hs.AlgorithmSemantic]; ok && !p.noCalibration {
				r.Explain.Semantic = p.semantic.calibration(sem.Score)
			}
		}
		out = append(out, r)
	}
	return out
}

// titleFor is the document's title for the searching user: a title taken
// from the file name is the name the user sees (a recipient may have
// renamed a share), any other (a document's own title) stays.
func titleFor(d *docGroup) string {
	name := func(p string) string { b := path.Base(p); return strings.TrimSuffix(b, path.Ext(b)) }
	if d.path != "" && d.meta.Title == name(d.meta.Path) {
		return name(d.path)
	}
	return d.meta.Title
}

// excerpt returns a chunk's text with the query's highlights.
func (p *plan) excerpt(c hs.Point) hs.Excerpt {
	e := hs.Excerpt{
		ChunkNo:    c.Chunk.No,
		Text:       c.Chunk.Text,
		Page:       c.Chunk.Page,
		Headings:   c.Chunk.Headings,
		OCR:        c.Chunk.OCR,
		Highlights: p.match.highlights(c.Chunk.Text),
	}
	for i, h := range c.Chunk.Headings {
		if hl := p.match.highlights(h); len(hl) > 0 {
			if e.HeadingHighlights == nil {
				e.HeadingHighlights = make([][][2]int, len(c.Chunk.Headings))
			}
			e.HeadingHighlights[i] = hl
		}
	}
	return e
}
