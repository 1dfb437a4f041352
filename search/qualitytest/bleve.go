package qualitytest

import (
	"fmt"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Bleve is a reference: a stock bleve index (v2.5.7) whose documents have
// one field, title and text, analysed with bleve's English analyzer
// (possessives, lowercase, Snowball stop words, Porter stemmer) and scored
// with bleve's BM25 model. The index is scorch, on disk: bleve's in-memory
// index (upsidedown) ignores the scoring model and scores with TF-IDF.
// bleve's BM25 takes the square root of a term's frequency and has no
// (k1+1) factor; TextbookBM25 is the formula as the literature writes it.
// Queries are match queries on that field (any term may match).
type Bleve struct {
	index bleve.Index
}

// NewBleve indexes the documents into a new scorch index in dir, which
// must not exist yet (a folder under the test's temporary folder).
func NewBleve(dir string, docs []Doc) (*Bleve, error) {
	im := bleve.NewIndexMapping()
	im.ScoringModel = "bm25" // bleve_index_api.BM25Scoring
	im.DefaultAnalyzer = en.AnalyzerName
	dm := mapping.NewDocumentStaticMapping()
	f := mapping.NewTextFieldMapping()
	f.Analyzer = en.AnalyzerName
	f.Store = false
	f.IncludeInAll = false
	dm.AddFieldMappingsAt("text", f)
	im.DefaultMapping = dm
	ix, err := bleve.New(dir, im)
	if err != nil {
		return nil, fmt.Errorf("qualitytest: bleve index: %w", err)
	}
	b := ix.NewBatch()
	for _, d := range docs {
		if err := b.Index(d.ID, map[string]any{"text": d.Title + "\n\n" + d.Text}); err != nil {
			ix.Close()
			return nil, fmt.Errorf("qualitytest: bleve index %s: %w", d.ID, err)
		}
	}
	if err := ix.Batch(b); err != nil {
		ix.Close()
		return nil, fmt.Errorf("qualitytest: bleve batch: %w", err)
	}
	return &Bleve{index: ix}, nil
}

// Search returns the ids of the k best documents for q, best first.
func (b *Bleve) Search(q string, k int) ([]string, error) {
	res, err := b.search(q, k, false)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = h.ID
	}
	return out, nil
}

// Explain returns bleve's explanation of the best document's score for
// q, as text ("" when nothing matches).
func (b *Bleve) Explain(q string) (string, error) {
	res, err := b.search(q, 1, true)
	if err != nil || len(res.Hits) == 0 {
		return "", err
	}
	return res.Hits[0].Expl.String(), nil
}

func (b *Bleve) search(q string, k int, explain bool) (*bleve.SearchResult, error) {
	mq := query.NewMatchQuery(q)
	mq.SetField("text")
	req := bleve.NewSearchRequestOptions(mq, k, 0, explain)
	res, err := b.index.Search(req)
	if err != nil {
		return nil, fmt.Errorf("qualitytest: bleve search: %w", err)
	}
	return res, nil
}

// Close releases the index.
func (b *Bleve) Close() error { return b.index.Close() }
