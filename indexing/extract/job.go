package extract

import (
	"context"
	"errors"
	"fmt"

	hs "github.com/hybrid-search/hybridsearch"
)

// job is the state of one parse: the input, the limits, the builder that
// collects the body and what the parser learns besides it.
type job struct {
	ctx    context.Context
	name   string
	format format
	data   []byte
	lim    limits
	b      *builder

	title     string
	extractor string // Text.Extractor; starts as the format's name

	pdftotext string // resolved pdftotext, "" when missing
	pdfinfo   string
	pdfimages string

	ocr    bool        // recognise text in images and scanned pages
	rec    *recognizer // nil when OCR is unavailable
	ocrErr error       // why, when rec is nil
}

// parse runs the parser for j.format.
func (j *job) parse() error {
	switch j.format {
	case fmtText:
		return j.plain()
	case fmtMarkdown:
		return j.markdown()
	case fmtHTML:
		return j.html()
	case fmtPDF:
		return j.pdf()
	case fmtDOCX:
		return j.docx()
	case fmtODT, fmtODS, fmtODP:
		return j.odf()
	case fmtXLSX:
		return j.xlsx()
	case fmtPPTX:
		return j.pptx()
	case fmtRTF:
		return j.rtf()
	case fmtCSV:
		return j.csv()
	case fmtJSON:
		return j.json()
	case fmtXML:
		return j.xml()
	case fmtEPUB:
		return j.epub()
	case fmtEML:
		return j.eml()
	case fmtImage:
		return j.image()
	}
	return unsupported(j.name, string(j.format))
}

// isStop reports whether err only says that parsing must stop: the text
// budget is spent or the context ended. Such errors pass through unwrapped.
func isStop(err error) bool {
	return errors.Is(err, errTruncated) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// invalid returns an EINVALID error about this file.
func (j *job) invalid(format string, args ...any) error {
	return hs.Errorf(hs.EINVALID, "extract %s: %s", j.name, fmt.Sprintf(format, args...))
}

// corrupt wraps a parser's error as EINVALID "corrupt <what>", passing
// stop errors and errors that already have a kind through.
func (j *job) corrupt(err error, what string) error {
	var e *hs.Error
	if err == nil || isStop(err) || errors.As(err, &e) {
		return err
	}
	return hs.WrapError(hs.EINVALID, err, fmt.Sprintf("extract %s: corrupt %s", j.name, what))
}
