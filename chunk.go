package hybridsearch

// Text is the plain text extracted from one file, ready for chunking.
type Text struct {
	// Body is valid UTF-8. Headings are Markdown heading lines ("# Title",
	// "## Part") wherever the source format has headings, and paragraphs are
	// separated by blank lines, so one chunker serves every format.
	Body string
	// Pages are page spans as rune offsets into Body, in order; empty when
	// the format has no pages.
	Pages []Page
	// Title is the document's own title, if the format carries one.
	Title string
	// Extractor names what produced Body ("markdown", "pdftotext", "docx", ...).
	Extractor string
}

// Page is one page of a paged document: rune offsets [Start, End) in Text.Body.
type Page struct {
	Number int `json:"number"` // 1-based
	Start  int `json:"start"`
	End    int `json:"end"`
	// OCR says the page's text was recognised from an image of it.
	OCR bool `json:"ocr,omitempty"`
}

// Chunk is one piece of a file's text: the unit that is embedded, stored
// and retrieved.
type Chunk struct {
	FileID   FileID   `json:"file_id"`
	No       int      `json:"no"`       // 0-based position in the file
	Text     string   `json:"text"`     // the chunk's text
	Start    int      `json:"start"`    // rune offset of Text in the extracted body
	End      int      `json:"end"`      // rune offset just past Text
	Headings []string `json:"headings"` // heading path, outermost first
	Page     int      `json:"page"`     // 1-based page of Start, 0 when unpaged
	// OCR says Text was recognised from an image (a scanned page or a
	// photo), so it may hold misread words.
	OCR bool `json:"ocr,omitempty"`
	// Hash is the hex SHA-256 of Text as chunked; in a stored point it is
	// the key its dense vector is reused under: the SHA-256 of the exact
	// text embedded, title and headings included (indexing.VectorKey).
	Hash string `json:"hash"`
}
