package local

import (
	"fmt"
	"maps"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
	"github.com/hybrid-search/hybridsearch/store"
)

// The capacity benchmark's data (issue 26): a company's store, drawn from
// fixed seeds so that any chunk can be drawn again from its file and
// number alone, and a store built once is reused between runs.
//
// At full size (capFull chunks) there are 500 users. u000 (the large user)
// sees about a third of the store: a personal folder, four group folders
// and shares with colleagues; u001 has a personal folder of 2,000 chunks
// and nothing else (the small user of the fairness figure); the others
// have personal folders of a few thousand chunks, are members of group
// folders and share files with each other. Every size scales the chunk
// counts and keeps the users, so the share u000 sees stays a third.
//
// Dense vectors ("mix"): a Gaussian mixture of capClusters clusters in 768
// dimensions, with files as sub-clusters (a file is about one topic).
// Centres are a common direction (weight capCommon, as real embeddings
// share one) plus a random unit vector, normalised, so two centres have a
// cosine near 0.2. A file's centre is its cluster's plus Gaussian noise of
// norm capFileSpread, a chunk its file's plus noise of norm capSpread, each
// normalised: two chunks of a file have a cosine near 0.8, of a cluster
// near 0.55, of two clusters near 0.1. A query is a random file's centre
// plus noise of norm capQuerySpread: near the data, its nearest chunks
// those of that file and then of its cluster. "uniform" data and queries
// are uniformly random unit vectors, the worst case for a graph index,
// with no text.
//
// Text: about 100 words per chunk drawn from a Zipf vocabulary (exponent
// capZipfS) whose most frequent words are English stop words followed by
// made-up words, so chunks analyse as English; the sparse vectors are the
// real analyzer's (analysis.PointVectors).

const (
	capFull        = 3_000_000
	capUsers       = 500
	capDim         = 768
	capClusters    = 2000
	capCommon      = 0.5
	capFileSpread  = 0.7
	capSpread      = 0.5
	capQuerySpread = 0.7
	capVocab       = 30_000
	capZipfS       = 1.07
	capWords       = 100
)

// capStop are the most frequent words of the vocabulary: stop words, which
// the analyzer drops.
var capStop = []string{"the", "of", "and", "to", "in", "is", "that", "for", "it", "as", "with", "was", "on", "be", "by", "this", "are", "from", "or", "an"}

// capGroup is a set of files with the same readers.
type capGroup struct {
	name    string // folder
	readers []hs.UserID
	size    int // chunks
}

// capFile is a file of the data set.
type capFile struct {
	id      hs.FileID
	group   int
	chunks  int
	cluster int
}

// capData is a data set: its groups and files, the cluster centres and the
// vocabulary.
type capData struct {
	kind    string // "mix" or "uniform"
	n       int    // chunks
	groups  []capGroup
	files   []capFile // in the order they are written
	centers [][]float32
	vocab   []string
	cdf     []float64 // Zipf CDF over vocab
	words   []capWord // the analyzer's view of each vocab word
	termIDs []uint32  // the words' BM25 terms, sorted
	triIDs  []uint32  // the words' trigrams, sorted
}

// capWord is a word as the analyzer indexes it in an English chunk: its
// BM25 term (none for a stop word) and its trigrams.
type capWord struct {
	term    uint32
	hasTerm bool
	tri     []uint32
	weight  float64 // BM25F field weight
	termNo  int32   // number of term in capData.termIDs, -1 for none
	triNos  []int32 // numbers of tri in capData.triIDs
}

// newCapData returns the data set of kind with about n chunks.
func newCapData(kind string, n int) *capData {
	d := &capData{kind: kind, n: n}
	rng := rand.New(rand.NewPCG(26, 1))
	if kind == "uniform" {
		d.groups = []capGroup{{name: "Shared", readers: []hs.UserID{"u000"}, size: n}}
	} else {
		d.groups = capGroups(rng, n)
		d.centers = capCenters(rng)
		d.vocab, d.cdf = capVocabulary(rng)
		d.words = make([]capWord, len(d.vocab))
		for i, w := range d.vocab {
			d.words[i] = capAnalyse(w, analysis.DefaultBM25F().Body)
		}
		d.number()
	}
	var id hs.FileID
	for gi, g := range d.groups {
		for left := g.size; left > 0; {
			c := min(left, 1+int(rng.ExpFloat64()*39), 500)
			id++
			d.files = append(d.files, capFile{id: id, group: gi, chunks: c, cluster: rng.IntN(capClusters)})
			left -= c
		}
	}
	// Files arrive in no particular order.
	rng.Shuffle(len(d.files), func(i, j int) { d.files[i], d.files[j] = d.files[j], d.files[i] })
	total := 0
	for _, f := range d.files {
		total += f.chunks
	}
	d.n = total
	return d
}

func capUser(i int) hs.UserID { return hs.UserID(fmt.Sprintf("u%03d", i)) }

// capGroups returns the groups of a mix data set of n chunks.
func capGroups(rng *rand.Rand, n int) []capGroup {
	f := float64(n) / capFull
	size := func(full int) int { return max(1, int(math.Round(float64(full)*f))) }
	members := func(with []int, lo, hi int) []hs.UserID {
		var out []hs.UserID
		for _, u := range with {
			out = append(out, capUser(u))
		}
		for m := lo + rng.IntN(hi-lo+1); m > 0; m-- {
			out = append(out, capUser(2+rng.IntN(capUsers-2)))
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	gs := []capGroup{
		{name: "Personal/u000", readers: []hs.UserID{"u000"}, size: size(200_000)},
		{name: "Personal/u001", readers: []hs.UserID{"u001"}, size: size(2_000)},
	}
	for i, full := range []int{400_000, 250_000, 100_000, 50_000} {
		gs = append(gs, capGroup{name: fmt.Sprintf("Team%d", i), readers: members([]int{0}, 20, 150), size: size(full)})
	}
	for i, full := range []int{200_000, 120_000, 80_000, 60_000, 50_000, 40_000, 30_000, 20_000} {
		gs = append(gs, capGroup{name: fmt.Sprintf("Dept%d", i), readers: members(nil, 10, 100), size: size(full)})
	}
	for i := range 30 {
		gs = append(gs, capGroup{name: fmt.Sprintf("Share/u000-%d", i), readers: members([]int{0}, 1, 1), size: size(20_000 / 30)})
	}
	for i := range 300 {
		gs = append(gs, capGroup{name: fmt.Sprintf("Share/x%d", i), readers: members(nil, 2, 2), size: size(40_000 / 300)})
	}
	used := 0
	for _, g := range gs {
		used += g.size
	}
	// The rest are the other users' personal folders, of unequal sizes.
	w := make([]float64, capUsers-2)
	var sum float64
	for i := range w {
		w[i] = math.Exp(rng.NormFloat64() * 0.6)
		sum += w[i]
	}
	left := max(0, n-used)
	for i := range w {
		if s := int(float64(left) * w[i] / sum); s > 0 {
			gs = append(gs, capGroup{name: fmt.Sprintf("Personal/u%03d", i+2), readers: []hs.UserID{capUser(i + 2)}, size: s})
		}
	}
	return gs
}

func capCenters(rng *rand.Rand) [][]float32 {
	common := store.Normalized(capGauss(rng, capDim, 1))
	cs := make([][]float32, capClusters)
	for i := range cs {
		c := store.Normalized(capGauss(rng, capDim, 1))
		for j := range c {
			c[j] += capCommon * common[j]
		}
		cs[i] = store.Normalized(c)
	}
	return cs
}

// capGauss returns n Gaussian values of standard deviation sd.
func capGauss(rng *rand.Rand, n int, sd float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64() * sd)
	}
	return v
}

func capVocabulary(rng *rand.Rand) ([]string, []float64) {
	vocab := slices.Clone(capStop)
	seen := make(map[string]bool)
	for _, w := range vocab {
		seen[w] = true
	}
	const letters = "etaoinshrdlcumwfgypbvkjxqz"
	for len(vocab) < capVocab {
		n := 3 + rng.IntN(8)
		b := make([]byte, n)
		for i := range b {
			// Skewed letters, so words share trigrams as real words do.
			b[i] = letters[min(len(letters)-1, int(rng.ExpFloat64()*6))]
		}
		if w := string(b); !seen[w] && !slices.Contains(capStop, w) {
			seen[w] = true
			vocab = append(vocab, w)
		}
	}
	cdf := make([]float64, len(vocab))
	var sum float64
	for i := range vocab {
		sum += math.Pow(float64(i+1), -capZipfS)
		cdf[i] = sum
	}
	for i := range cdf {
		cdf[i] /= sum
	}
	return vocab, cdf
}

// word draws a word's index in the vocabulary.
func (d *capData) word(rng *rand.Rand) int {
	i, _ := slices.BinarySearch(d.cdf, rng.Float64())
	return min(i, len(d.vocab)-1)
}

// analyse returns how the analyzer indexes a folded token in an English
// chunk: the stem tagged "en", the token itself when it has digits, none
// for a stop word; and its trigrams.
func capAnalyse(tok string, weight float64) capWord {
	w := capWord{weight: weight}
	for _, qw := range analysis.QueryWords(tok) {
		for _, t := range qw.Terms {
			if strings.HasPrefix(t, "en ") || strings.ContainsFunc(tok, func(r rune) bool { return '0' <= r && r <= '9' }) {
				w.term, w.hasTerm = analysis.TokenID(t), true
				break
			}
		}
	}
	w.tri = analysis.Trigrams(tok).Indices
	return w
}

// header returns the analysed tokens of a file's title and folders, with
// their BM25F field weights.
func capHeader(meta hs.FileMeta) []capWord {
	var out []capWord
	for _, tok := range analysis.Tokens(meta.Title) {
		out = append(out, capAnalyse(tok.Text, analysis.DefaultBM25F().Title))
	}
	dir := meta.Path[:strings.LastIndexByte(meta.Path, '/')]
	for _, tok := range analysis.Tokens(strings.ReplaceAll(dir, "/", " ")) {
		out = append(out, capAnalyse(tok.Text, analysis.DefaultBM25F().Path))
	}
	return out
}

// sparse returns the BM25 and trigram vectors of an English chunk of
// words (vocabulary indices) in a file whose title and folders analyse to
// header: what analysis.PointVectors returns for it (TestCapVectors
// checks), computed from each word's analysis rather than by analysing
// the text. Vocabulary terms and trigrams are numbered in the order of
// their ids, so a bitset gives them sorted.
func (d *capData) sparse(sc *capScratch, header []capWord, words []int) (bm25, trigram hs.SparseVector) {
	if len(sc.ttf) < len(d.termIDs) {
		sc.ttf = make([]float64, len(d.termIDs))
		sc.tri = make([]uint64, (len(d.triIDs)+63)/64)
	}
	tri, ttf := sc.tri, sc.ttf
	tf := make(map[uint32]float64, 2*len(header)+len(words))
	touched := sc.touched[:0]
	total := 0
	for i := range header {
		w := &header[i]
		if w.hasTerm {
			tf[w.term] += w.weight
			total++
		}
	}
	for _, i := range words {
		w := &d.words[i]
		if w.termNo >= 0 {
			if ttf[w.termNo] == 0 {
				touched = append(touched, w.termNo)
			}
			ttf[w.termNo] += w.weight
			total++
		}
		for _, t := range w.triNos {
			tri[t>>6] |= 1 << (t & 63)
		}
	}
	for _, t := range touched {
		tf[d.termIDs[t]] += ttf[t]
		ttf[t] = 0
	}
	sc.touched = touched
	p := analysis.DefaultBM25F()
	k, b, avg := p.K1, p.B, p.AvgLen
	norm := 1.0 - b + b*float64(total)/avg
	bm25.Indices = make([]uint32, 0, len(tf))
	for t := range tf {
		bm25.Indices = append(bm25.Indices, t)
	}
	slices.Sort(bm25.Indices)
	bm25.Values = make([]float32, len(bm25.Indices))
	for i, t := range bm25.Indices {
		f := tf[t]
		bm25.Values[i] = float32(f * (k + 1) / math.FMA(k, norm, f))
	}
	var own []uint32
	for wi, word := range tri {
		for word != 0 {
			own = append(own, d.triIDs[wi*64+bits.TrailingZeros64(word)])
			word &= word - 1
		}
		tri[wi] = 0
	}
	var extra []uint32
	for i := range header {
		extra = append(extra, header[i].tri...)
	}
	slices.Sort(extra)
	trigram.Indices = mergeSorted(own, slices.Compact(extra))
	trigram.Values = make([]float32, len(trigram.Indices))
	for i := range trigram.Values {
		trigram.Values[i] = 1
	}
	return bm25, trigram
}

// capScratch is the reusable state of capData.sparse.
type capScratch struct {
	ttf     []float64 // term frequency by term number
	tri     []uint64  // trigram numbers seen
	touched []int32
}

// mergeSorted returns the sorted union of two sorted lists without repeats.
func mergeSorted(a, b []uint32) []uint32 {
	out := make([]uint32, 0, len(a)+len(b))
	for len(a) > 0 || len(b) > 0 {
		switch {
		case len(b) == 0 || len(a) > 0 && a[0] < b[0]:
			out, a = append(out, a[0]), a[1:]
		case len(a) == 0 || b[0] < a[0]:
			out, b = append(out, b[0]), b[1:]
		default:
			out, a, b = append(out, a[0]), a[1:], b[1:]
		}
	}
	return out
}

// number numbers the vocabulary's terms and trigrams in id order.
func (d *capData) number() {
	terms := make(map[uint32]bool)
	tris := make(map[uint32]bool)
	for _, w := range d.words {
		if w.hasTerm {
			terms[w.term] = true
		}
		for _, t := range w.tri {
			tris[t] = true
		}
	}
	d.termIDs = slices.Sorted(maps.Keys(terms))
	d.triIDs = slices.Sorted(maps.Keys(tris))
	for i := range d.words {
		w := &d.words[i]
		w.termNo = -1
		if w.hasTerm {
			n, _ := slices.BinarySearch(d.termIDs, w.term)
			w.termNo = int32(n)
		}
		for _, t := range w.tri {
			n, _ := slices.BinarySearch(d.triIDs, t)
			w.triNos = append(w.triNos, int32(n))
		}
	}
}

// meta returns the metadata of file f.
func (d *capData) meta(f capFile) hs.FileMeta {
	g := d.groups[f.group]
	return hs.FileMeta{
		ID:       f.id,
		Path:     fmt.Sprintf("/%s/f%d.md", g.name, f.id),
		Title:    fmt.Sprintf("Document %d", f.id),
		MIME:     "text/markdown",
		Type:     hs.DocFile,
		Modified: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(f.id) * time.Minute),
		Size:     int64(f.chunks) * 700,
		Readers:  g.readers,
	}
}

// points draws version v of file f's points (a rewrite draws version 1).
func (d *capData) points(f capFile, v int) []hs.Point {
	meta := d.meta(f)
	out := make([]hs.Point, f.chunks)
	var sb strings.Builder
	words := make([]int, capWords)
	var header []capWord
	var sc capScratch
	center := d.fileCenter(f)
	if d.kind != "uniform" {
		header = capHeader(meta)
	}
	for no := range out {
		rng := rand.New(rand.NewPCG(uint64(f.id)<<20|uint64(no), uint64(v)+7))
		c := hs.Chunk{FileID: f.id, No: no, Headings: []string{meta.Title}}
		p := hs.Point{ID: hs.PointID(f.id, no), File: meta, Dense: d.vector(rng, center, capSpread)}
		if d.kind != "uniform" {
			sb.Reset()
			for i := range words {
				words[i] = d.word(rng)
				if i > 0 {
					sb.WriteByte(' ')
				}
				sb.WriteString(d.vocab[words[i]])
			}
			c.Text = sb.String()
			c.Start, c.End = no*700, no*700+len(c.Text)
			c.Hash = fmt.Sprintf("%x-%d-%d-%d", uint64(f.id), no, v, len(c.Text))
			p.BM25, p.Trigram = d.sparse(&sc, header, words)
		}
		p.Chunk = c
		out[no] = p
	}
	return out
}

// fileCenter returns the centre of file f's chunks (nil for uniform data).
func (d *capData) fileCenter(f capFile) []float32 {
	if d.kind == "uniform" {
		return nil
	}
	rng := rand.New(rand.NewPCG(uint64(f.id), 0xf11e))
	return d.vector(rng, d.centers[f.cluster], capFileSpread)
}

// vector draws a unit vector: center plus Gaussian noise of norm about
// spread, normalised, or a uniform one when center is nil.
func (d *capData) vector(rng *rand.Rand, center []float32, spread float64) []float32 {
	if center == nil {
		return store.Normalized(capGauss(rng, capDim, 1))
	}
	v := capGauss(rng, capDim, spread/math.Sqrt(capDim))
	for j, c := range center {
		v[j] += c
	}
	return store.Normalized(v)
}

// denseQueries draws n dense queries: near the data (near a random file's
// centre) or uniform.
func (d *capData) denseQueries(n int) [][]float32 {
	rng := rand.New(rand.NewPCG(26, 2))
	out := make([][]float32, n)
	for i := range out {
		f := d.files[rng.IntN(len(d.files))]
		out[i] = d.vector(rng, d.fileCenter(f), capQuerySpread)
	}
	return out
}

// commonWords returns the n most frequent words that are not stop words.
func (d *capData) commonWords(n int) []string {
	var out []string
	for _, w := range d.vocab {
		if !slices.Contains(capStop, w) {
			out = append(out, w)
			if len(out) == n {
				break
			}
		}
	}
	return out
}

// keywordTexts returns the keyword queries: the 20 most frequent non-stop
// words alone, then two- and three-word queries of a common word and
// words of middle frequency.
func (d *capData) keywordTexts() []string {
	common := d.commonWords(20)
	out := slices.Clone(common)
	rng := rand.New(rand.NewPCG(26, 3))
	for i := range 20 {
		q := []string{common[i], d.vocab[len(capStop)+50+rng.IntN(2000)]}
		if i%2 == 1 {
			q = append(q, d.vocab[len(capStop)+200+rng.IntN(5000)])
		}
		out = append(out, strings.Join(q, " "))
	}
	return out
}

// typoTexts returns words of middle frequency with one letter changed: the
// fuzzy leg's queries.
func (d *capData) typoTexts(n int) []string {
	rng := rand.New(rand.NewPCG(26, 4))
	var out []string
	for len(out) < n {
		w := []byte(d.vocab[len(capStop)+20+rng.IntN(3000)])
		if len(w) < 6 {
			continue
		}
		w[1+rng.IntN(len(w)-2)] = byte('a' + rng.IntN(26))
		out = append(out, string(w))
	}
	return out
}

// keywordVector returns the keyword leg's query vector for text as the
// search service builds it (search.keywordQuery): each word weighs
// count·idf(n*, N), sent as weight/idf(n_t, N) per index term so the
// store's IDF brings it back. df gives the document frequencies.
func keywordVector(text string, df func(ids []uint32) ([]int, int)) hs.SparseVector {
	weights := make(map[uint32]float32)
	for _, w := range analysis.QueryWords(text) {
		ids := make([]uint32, len(w.Terms))
		for i, t := range w.Terms {
			ids[i] = analysis.TokenID(t)
		}
		n, total := df(ids)
		best := 0
		for _, x := range n {
			best = max(best, x)
		}
		if best == 0 {
			continue
		}
		c := float64(w.Count) * analysis.IDF(best, total)
		for i, id := range ids {
			if n[i] > 0 {
				weights[id] += float32(c / analysis.IDF(n[i], total))
			}
		}
	}
	var v hs.SparseVector
	for id := range weights {
		v.Indices = append(v.Indices, id)
	}
	slices.Sort(v.Indices)
	for _, id := range v.Indices {
		v.Values = append(v.Values, weights[id])
	}
	return v
}

// visible returns how many chunks user sees.
func (d *capData) visible(user hs.UserID) int {
	n := 0
	for _, f := range d.files {
		if slices.Contains(d.groups[f.group].readers, user) {
			n += f.chunks
		}
	}
	return n
}
