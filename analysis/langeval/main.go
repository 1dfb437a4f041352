// Command langeval measures language detectors side by side on short
// chunks in the twelve languages the analyzer stems: accuracy per
// language, heap after loading, allocations and time per detection. It
// compares the analyzer's own Detect (github.com/abadojack/whatlanggo with
// the analyzer's limits) with github.com/pemistahl/lingua-go under the
// same rules (same sample, same minimum of letters, same 22 candidate
// languages).
//
// It is a module of its own so that lingua-go (128 MB of models) is never
// a dependency of the product. Text comes from the translated manual pages
// Debian installs under /usr/share/man/<lang> (packages manpages-de,
// manpages-fr, ... manpages-nb, manpages-fi; English from manpages): the
// roff markup is stripped, paragraphs are cut at sentence ends into chunks
// of 50–300 characters, and a chunk is kept only when it holds more stop
// words of its language than of English (translated pages keep some
// untranslated English paragraphs). Files are read in sorted order and
// chunks taken round-robin over files, so every run measures the same
// chunks.
//
//	cd analysis/langeval && go run . -per 150
package main

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/hybrid-search/hybridsearch/analysis"
	"github.com/hybrid-search/hybridsearch/internal/cputime"
	"github.com/pemistahl/lingua-go"
)

// dirs maps each analyzer language to its manual-page folders.
var dirs = map[analysis.Language][]string{
	"en": {"man1", "man5", "man8"}, "de": {"de"}, "fr": {"fr"}, "es": {"es"}, "it": {"it"},
	"nl": {"nl"}, "pt": {"pt", "pt_BR"}, "sv": {"sv"}, "da": {"da"}, "no": {"nb"},
	"fi": {"fi"}, "ru": {"ru"},
}

func main() {
	root := flag.String("man", "/usr/share/man", "manual page root")
	per := flag.Int("per", 150, "chunks per language")
	only := flag.String("only", "", "run only the detector whose name starts with this")
	flag.Parse()
	chunks := map[analysis.Language][]string{}
	for _, l := range analysis.Languages() {
		chunks[l] = readChunks(*root, l, *per)
	}
	detectors := []struct {
		name string
		load func() func(string) analysis.Language
	}{
		{"whatlanggo (analysis.Detect)", func() func(string) analysis.Language {
			analysis.Detect("warm up the word lists and the detector")
			return analysis.Detect
		}},
		{"lingua-go low accuracy", func() func(string) analysis.Language { return linguaDetect(true, 0) }},
		{"lingua-go high accuracy", func() func(string) analysis.Language { return linguaDetect(false, 0) }},
		{"lingua-go high accuracy, minimum relative distance 0.05", func() func(string) analysis.Language { return linguaDetect(false, 0.05) }},
	}
	for _, d := range detectors {
		if !strings.HasPrefix(d.name, *only) {
			continue
		}
		before := heap()
		detect := d.load()
		loaded := heap() - before
		fmt.Printf("\n## %s\n\nheap after loading: %.1f MiB\n\n| lang | chunks | correct | none | wrong | accuracy |\n|---|---|---|---|---|---|\n", d.name, float64(loaded)/(1<<20))
		var n, ok, bad int
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		mallocs := ms.Mallocs
		start, cpu := time.Now(), cputime.Process()
		for _, l := range analysis.Languages() {
			var c, none int
			wrong := map[analysis.Language]int{}
			for _, text := range chunks[l] {
				switch got := detect(text); got {
				case l:
					c++
				case analysis.LangNone:
					none++
				default:
					wrong[got]++
				}
			}
			n += len(chunks[l])
			ok += c
			bad += len(chunks[l]) - c - none
			fmt.Printf("| %s | %d | %d | %d | %s | %.1f%% |\n", l, len(chunks[l]), c, none, fmtWrong(wrong), 100*float64(c)/float64(max(1, len(chunks[l]))))
		}
		took, cpuTook := time.Since(start), cputime.Process()-cpu
		runtime.ReadMemStats(&ms)
		fmt.Printf("| all | %d | %d | | %d | %.1f%% |\n\nper detection: %.0f µs wall, %.0f µs CPU, %.0f allocations; heap after the run %.1f MiB\n", n, ok, bad, 100*float64(ok)/float64(n),
			float64(took.Microseconds())/float64(n), float64(cpuTook.Microseconds())/float64(n), float64(ms.Mallocs-mallocs)/float64(n), float64(heap()-before)/(1<<20))
		runtime.KeepAlive(detect)
	}
}

func fmtWrong(w map[analysis.Language]int) string {
	var parts []string
	for l, c := range w {
		parts = append(parts, fmt.Sprintf("%s:%d", l, c))
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

var linguaLangs = map[lingua.Language]analysis.Language{
	lingua.English: "en", lingua.German: "de", lingua.French: "fr", lingua.Spanish: "es",
	lingua.Italian: "it", lingua.Dutch: "nl", lingua.Portuguese: "pt", lingua.Swedish: "sv",
	lingua.Danish: "da", lingua.Bokmal: "no", lingua.Finnish: "fi", lingua.Russian: "ru",
}

var linguaOthers = []lingua.Language{lingua.Ukrainian, lingua.Polish, lingua.Czech, lingua.Turkish, lingua.Romanian,
	lingua.Hungarian, lingua.Croatian, lingua.Slovene, lingua.Lithuanian, lingua.Latvian}

// linguaDetect is lingua-go under analysis.Detect's rules: the same
// sample and minimum of letters, the twelve languages plus the ten it may
// answer instead.
func linguaDetect(low bool, distance float64) func(string) analysis.Language {
	langs := slices.Clone(linguaOthers)
	for l := range linguaLangs {
		langs = append(langs, l)
	}
	b := lingua.NewLanguageDetectorBuilder().FromLanguages(langs...).WithMinimumRelativeDistance(distance).WithPreloadedLanguageModels()
	if low {
		b = b.WithLowAccuracyMode()
	}
	d := b.Build()
	return func(text string) analysis.Language {
		sample, ok := analysis.DetectSample(text)
		if !ok {
			return analysis.LangNone
		}
		l, ok := d.DetectLanguageOf(sample)
		if !ok {
			return analysis.LangNone
		}
		return linguaLangs[l]
	}
}

var (
	escapes   = regexp.MustCompile(`\\f(\[[^\]]*\]|\(..|.)|\\\(..|\\\*(\(..|\[[^\]]*\]|.)|\\s[-+]?\d|\\[&c%e|^~0-]`)
	sentences = regexp.MustCompile(`[.!?]\s+`)
)

// readChunks returns up to per chunks of the language's manual pages.
func readChunks(root string, l analysis.Language, per int) []string {
	var files []string
	for _, d := range dirs[l] {
		m, _ := filepath.Glob(filepath.Join(root, d, "*.gz"))
		files = append(files, m...)
		if !strings.HasPrefix(d, "man") {
			m, _ = filepath.Glob(filepath.Join(root, d, "man*", "*.gz"))
		} else {
			m = nil
		}
		files = append(files, m...)
	}
	slices.Sort(files)
	perFile := make([][]string, 0, len(files))
	for _, f := range files {
		if c := fileChunks(f, l); len(c) > 0 {
			perFile = append(perFile, c)
		}
	}
	var out []string
	for i := 0; len(out) < per; i++ {
		took := false
		for _, c := range perFile {
			if i < len(c) && len(out) < per {
				out = append(out, c[i])
				took = true
			}
		}
		if !took {
			break
		}
	}
	return out
}

// fileChunks strips roff from one page and cuts its paragraphs into
// chunks of 50–300 characters at sentence ends.
func fileChunks(path string, l analysis.Language) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil
	}
	var paras []string
	var cur strings.Builder
	flush := func() {
		if p := strings.Join(strings.Fields(cur.String()), " "); p != "" {
			paras = append(paras, p)
		}
		cur.Reset()
	}
	sc := bufio.NewScanner(io.LimitReader(z, 1<<20))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, ".") || strings.HasPrefix(line, "'") {
			if strings.HasPrefix(line, ".PP") || strings.HasPrefix(line, ".P ") || line == ".P" || strings.HasPrefix(line, ".SH") || strings.HasPrefix(line, ".TP") || strings.HasPrefix(line, ".IP") || strings.HasPrefix(line, ".LP") {
				flush()
			}
			continue
		}
		if line == "" {
			flush()
			continue
		}
		cur.WriteString(escapes.ReplaceAllString(line, "") + " ")
	}
	flush()
	var out []string
	for _, p := range paras {
		var chunk strings.Builder
		idx := sentences.FindAllStringIndex(p, -1)
		prev := 0
		for _, s := range append(idx, []int{len(p), len(p)}) {
			sent := p[prev:s[1]]
			prev = s[1]
			if chunk.Len()+len(sent) > 300 {
				chunk.Reset()
			}
			chunk.WriteString(sent)
			if c := strings.TrimSpace(chunk.String()); len(c) >= 50 && len([]rune(c)) <= 300 && chunk.Len() >= 150 {
				if keep(c, l) {
					out = append(out, c)
				}
				chunk.Reset()
			}
		}
		if c := strings.TrimSpace(chunk.String()); len(c) >= 50 && len([]rune(c)) <= 300 && keep(c, l) {
			out = append(out, c)
		}
	}
	return out
}

// keep reports whether a chunk looks like prose in its language: more of
// its words are stop words of that language than of English (no detector
// is asked, so neither is favoured), and a fifth of its characters at most
// are not letters or spaces (code, option lists).
func keep(text string, l analysis.Language) bool {
	var other int
	for _, r := range text {
		if !unicode.IsLetter(r) && !unicode.IsSpace(r) && !strings.ContainsRune(".,;:'’«»()", r) {
			other++
		}
	}
	if other*5 > len([]rune(text)) {
		return false
	}
	own, en := 0, 0
	for _, w := range analysis.QueryWords(text) {
		if stopIn(w, l) {
			own++
		}
		if stopIn(w, "en") {
			en++
		}
	}
	if l == "en" {
		return en >= 2
	}
	return own >= 2 && own > en
}

// stopIn reports whether a query word is a stop word of language l: it
// is a stop word somewhere and has no stem in l.
func stopIn(w analysis.Word, l analysis.Language) bool {
	return w.Stop && !slices.ContainsFunc(w.Terms, func(t string) bool { return strings.HasPrefix(t, string(l)+" ") })
}
