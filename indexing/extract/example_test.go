package extract_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing/extract"
)

func ExampleExtractor_Extract() {
	x := &extract.Extractor{} // defaults: 100 MiB input, 60 s, pdftotext from PATH
	page := `<html><head><title>Release notes</title></head>
<body><nav>Home | Docs</nav><h1>Version 2</h1><p>Faster   search.</p>
<ul><li>Hybrid ranking</li><li>Umlaute: Grüße</li></ul></body></html>`
	text, err := x.Extract(context.Background(), "notes.html", "text/html", strings.NewReader(page))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s (%s)\n%s\n", text.Title, text.Extractor, text.Body)

	_, err = x.Extract(context.Background(), "clip.mp4", "video/mp4", strings.NewReader("\x00\x00\x00\x18ftypmp42"))
	fmt.Println(errors.Is(err, extract.ErrUnsupported), hs.ErrorKind(err))
	// Output:
	// Release notes (html)
	// # Version 2
	//
	// Faster search.
	//
	// - Hybrid ranking
	// - Umlaute: Grüße
	// true invalid
}
