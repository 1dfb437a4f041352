package extract_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hybrid-search/hybridsearch/indexing/extract"
	"github.com/hybrid-search/hybridsearch/indexing/extract/ocrtest"
	"github.com/hybrid-search/hybridsearch/internal/benchsmoke"
)

// benchPages are page texts per language, a few paragraphs each, set in
// a page-sized window (A5 at 150 dpi) for the OCR benchmark.
var benchPages = map[string][]string{
	"eng": {
		"The quarterly maintenance report covers the three lighthouses on the northern coast.",
		"Each lamp was cleaned and its mantle replaced before the winter storms arrived.",
		"The keepers recorded wind speed, visibility and the passing ships every four hours.",
		"Invoices for fuel, spare glass and the new radio were sent to the harbour office.",
	},
	"deu": {
		"Der Quartalsbericht über die Wartung umfasst die drei Leuchttürme an der Nordküste.",
		"Jede Lampe wurde gereinigt und vor den Winterstürmen mit einem neuen Glühstrumpf versehen.",
		"Die Wärter notierten alle vier Stunden Windgeschwindigkeit, Sicht und vorbeifahrende Schiffe.",
		"Rechnungen für Brennstoff, Ersatzglas und das neue Funkgerät gingen an das Hafenamt.",
	},
	"jpn": {
		"北海岸にある三つの灯台の保守報告書です。",
		"冬の嵐が来る前に、各灯台のランプを掃除しました。",
		"灯台守は四時間ごとに風速と視界と通過する船を記録しました。",
		"燃料と予備のガラスと新しい無線機の請求書を港の事務所に送りました。",
	},
}

// BenchmarkOCR reports the OCR throughput (pages/min, one recognition at
// a time as one OCR worker runs them, on a scanned PDF of page-sized
// images in English, German and Japanese) and the word accuracy per
// language (share of the page's words found in the recognised text; for
// Japanese, characters). OCR_BENCH_PAGES sets the pages per language
// (default 4, 1 in the test command's smoke). Beside it, one page per
// language as a HEIC photo (encoded with libheif's heif-enc) and, for
// reference, as a PNG: pages/min of each, their ratio and the HEIC's word
// accuracy (English only in the smoke; left out, saying so, where
// libheif-examples is missing outside CI). scripts/bench ocr runs it.
func BenchmarkOCR(b *testing.B) {
	tools := ocrtest.Need(b)
	perLang := benchsmoke.Size(4, 1)
	if n, err := fmt.Sscan(os.Getenv("OCR_BENCH_PAGES"), &perLang); n != 1 || err != nil || perLang < 1 {
		perLang = benchsmoke.Size(4, 1)
	}
	type page struct {
		lang, want string
		png        []byte
	}
	var pages []page
	pngs := map[string][]byte{}
	for _, lang := range []string{"eng", "deu", "jpn"} {
		lines := benchPages[lang]
		png := tools.PNG(b, ocrtest.PageHTML(lines...), 874, 1240)
		pngs[lang] = png
		for range perLang {
			pages = append(pages, page{lang, strings.Join(lines, " "), png})
		}
	}
	var imgs [][]byte
	for _, p := range pages {
		imgs = append(imgs, p.png)
	}
	scan := tools.ScanPDF(b, imgs...)
	x := &extract.Extractor{}
	var load1 string
	if l, err := os.ReadFile("/proc/loadavg"); err == nil {
		load1 = strings.Fields(string(l))[0]
	}
	b.ResetTimer()
	var text string
	var pagesRead []int
	start := time.Now()
	for range b.N {
		t, err := x.ExtractOCR(context.Background(), "scan.pdf", "application/pdf", bytes.NewReader(scan))
		if err != nil {
			b.Fatal(err)
		}
		text = t.Body
		pagesRead = pagesRead[:0]
		for _, p := range t.Pages {
			pagesRead = append(pagesRead, p.Start, p.End)
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(len(pages)*b.N)/elapsed.Minutes(), "pages/min")
	runes := []rune(text)
	acc := map[string][]float64{}
	for i, p := range pages {
		got := string(runes[pagesRead[2*i]:pagesRead[2*i+1]])
		acc[p.lang] = append(acc[p.lang], ocrtest.WordAccuracy(p.want, got))
	}
	for _, lang := range []string{"eng", "deu", "jpn"} {
		sum := 0.0
		for _, a := range acc[lang] {
			sum += a
		}
		b.ReportMetric(sum/float64(len(acc[lang])), "acc-"+lang)
	}
	b.Logf("%d pages (874×1240 px, 4 paragraphs, %d per language) in %s per run; %d CPUs, load average at start %s",
		len(pages), perLang, (elapsed / time.Duration(b.N)).Round(time.Millisecond), runtime.NumCPU(), load1)
	benchHEIC(b, x, pngs)
}

// benchHEIC reports the pages/min of HEIC photos of the pages beside the
// same pages as PNG, their ratio, and the HEIC's word accuracy.
func benchHEIC(b *testing.B, x *extract.Extractor, pngs map[string][]byte) {
	_, errEnc := exec.LookPath("heif-enc")
	_, errDec := exec.LookPath("heif-dec")
	if errDec != nil {
		_, errDec = exec.LookPath("heif-convert")
	}
	if (errEnc != nil || errDec != nil) && os.Getenv("CI") != "true" {
		b.Log("HEIC figures left out: libheif-examples is not installed (scripts/install-deps installs it)")
		return
	}
	langs := []string{"eng", "deu", "jpn"}
	if benchsmoke.On() {
		langs = langs[:1]
	}
	read := func(name, mime string, data []byte) (body string, took time.Duration) {
		start := time.Now()
		for range b.N {
			t, err := x.ExtractOCR(context.Background(), name, mime, bytes.NewReader(data))
			if err != nil {
				b.Fatalf("%s: %v", name, err)
			}
			body = t.Body
		}
		return body, time.Since(start)
	}
	var pngTime, heicTime time.Duration
	var acc float64
	var sizes []string
	for _, lang := range langs {
		heic := ocrtest.HEIC(b, pngs[lang])
		_, d := read("page.png", "image/png", pngs[lang])
		pngTime += d
		text, d := read("IMG_0001.heic", "image/heic", heic)
		heicTime += d
		a := ocrtest.WordAccuracy(strings.Join(benchPages[lang], " "), text)
		acc += a
		sizes = append(sizes, fmt.Sprintf("%s %d B HEIC / %d B PNG, accuracy %.2f", lang, len(heic), len(pngs[lang]), a))
	}
	n := float64(len(langs) * b.N)
	b.ReportMetric(n/heicTime.Minutes(), "heic-pages/min")
	b.ReportMetric(n/pngTime.Minutes(), "png-pages/min")
	b.ReportMetric(heicTime.Seconds()/pngTime.Seconds(), "heic/png-time")
	b.ReportMetric(acc/float64(len(langs)), "acc-heic")
	b.Logf("HEIC photos of %d page(s) read one file each (decoded by libheif, then tesseract) beside the same pages as PNG: %s",
		len(langs), strings.Join(sizes, "; "))
}
