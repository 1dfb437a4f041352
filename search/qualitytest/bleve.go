package qualitytest

import (
	"fmt"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Bleve is the reference: a stock bleve index (v2.5.7, in memory) whose
// documents have one field, title and text, analysed with bleve's English
// analyzer (possessives, lowercase, Snowball stop words, Porter stemmer)
// and scored with bleve's BM25 model. Queries are match queries on that
// field (any term may match).
type Bleve struct {
	index bleve.Index
}

// NewBleve indexes the documents.
func NewBleve(docs []Doc) (*Bleve, error) {
	im := bleve.NewIndexMapping()
	im.ScoringModel = "bm25"
	im.DefaultAnalyzer = en.AnalyzerName
	dm := mapping.NewDocumentStaticMapping()
	f := mapping.NewTextFieldMapping()
	f.Analyzer = en.AnalyzerName
	f.Store = false
	f.IncludeInAll = false
	dm.AddFieldMappingsAt("text", f)
	im.DefaultMapping = dm
	ix, err := bleve.NewMemOnly(im)
	if err != nil {
		return nil, fmt.Errorf("qualitytest: bleve index: %w", err)
	}
	b := ix.NewBatch()
	for _, d := range docs {
		if err := b.Index(d.ID, map[string]any{"text": d.Title + "\n\n" + d.Text}); err != nil {
			return nil, fmt.Errorf("qualitytest: bleve index %s: %w", d.ID, err)
		}
	}
	if err := ix.Batch(b); err != nil {
		return nil, fmt.Errorf("qualitytest: bleve batch: %w", err)
	}
	return &Bleve{index: ix}, nil
}

// Search returns the ids of the k best documents for q, best first.
func (b *Bleve) Search(q string, k int) ([]string, error) {
	mq := query.NewMatchQuery(q)
	mq.SetField("text")
	req := bleve.NewSearchRequestOptions(mq, k, 0, false)
	res, err := b.index.Search(req)
	if err != nil {
		return nil, fmt.Errorf("qualitytest: bleve search: %w", err)
	}
	out := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = h.ID
	}
	return out, nil
}

// Close releases the index.
func (b *Bleve) Close() error { return b.index.Close() }
