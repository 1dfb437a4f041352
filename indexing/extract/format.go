package extract

import (
	"archive/zip"
	"bytes"
	"io"
	"mime"
	"path"
	"strings"

	"github.com/gabriel-vasile/mimetype"
)

// format is a file format the package extracts; its value is the default
// Text.Extractor.
type format string

const (
	fmtUnknown  format = ""
	fmtText     format = "text"
	fmtMarkdown format = "markdown"
	fmtHTML     format = "html"
	fmtPDF      format = "pdf"
	fmtDOCX     format = "docx"
	fmtODT      format = "odt"
	fmtXLSX     format = "xlsx"
	fmtODS      format = "ods"
	fmtPPTX     format = "pptx"
	fmtODP      format = "odp"
	fmtRTF      format = "rtf"
	fmtCSV      format = "csv"
	fmtJSON     format = "json"
	fmtXML      format = "xml"
	fmtEPUB     format = "epub"
	fmtEML      format = "eml"
	fmtImage    format = "image" // text recognised by OCR

	fmtZip format = "zip" // sniffed: look inside to tell the zip-based formats apart
)

// mimeFormats maps media types to formats.
var mimeFormats = map[string]format{
	"text/plain":                fmtText,
	"text/markdown":             fmtMarkdown,
	"text/x-markdown":           fmtMarkdown,
	"text/html":                 fmtHTML,
	"application/xhtml+xml":     fmtHTML,
	"application/pdf":           fmtPDF,
	"application/x-pdf":         fmtPDF,
	"application/rtf":           fmtRTF,
	"text/rtf":                  fmtRTF,
	"text/csv":                  fmtCSV,
	"text/tab-separated-values": fmtCSV,
	"application/csv":           fmtCSV,
	"application/json":          fmtJSON,
	"application/ld+json":       fmtJSON,
	"application/x-ndjson":      fmtJSON,
	"application/xml":           fmtXML,
	"text/xml":                  fmtXML,
	"application/epub+zip":      fmtEPUB,
	"message/rfc822":            fmtEML,
	"application/vnd.oasis.opendocument.text":                                   fmtODT,
	"application/vnd.oasis.opendocument.text-template":                          fmtODT,
	"application/vnd.oasis.opendocument.spreadsheet":                            fmtODS,
	"application/vnd.oasis.opendocument.spreadsheet-template":                   fmtODS,
	"application/vnd.oasis.opendocument.presentation":                           fmtODP,
	"application/vnd.oasis.opendocument.presentation-template":                  fmtODP,
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document":   fmtDOCX,
	"application/vnd.openxmlformats-officedocument.wordprocessingml.template":   fmtDOCX,
	"application/vnd.ms-word.document.macroenabled.12":                          fmtDOCX,
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":         fmtXLSX,
	"application/vnd.openxmlformats-officedocument.spreadsheetml.template":      fmtXLSX,
	"application/vnd.ms-excel.sheet.macroenabled.12":                            fmtXLSX,
	"application/vnd.openxmlformats-officedocument.presentationml.presentation": fmtPPTX,
	"application/vnd.openxmlformats-officedocument.presentationml.slideshow":    fmtPPTX,
	"application/vnd.ms-powerpoint.presentation.macroenabled.12":                fmtPPTX,
	"image/png":   fmtImage,
	"image/jpeg":  fmtImage,
	"image/pjpeg": fmtImage,
	"image/tiff":  fmtImage,
	"image/webp":  fmtImage,
	"image/heic":  fmtImage,
	"image/heif":  fmtImage,
	// Source code and configuration that Nextcloud labels outside text/*.
	"application/javascript": fmtText,
	"application/x-yaml":     fmtText,
	"application/yaml":       fmtText,
	"application/x-sh":       fmtText,
	"application/x-php":      fmtText,
	"application/sql":        fmtText,
	"application/x-tex":      fmtText,
	"application/toml":       fmtText,
}

// extFormats maps lower-case file extensions to formats.
var extFormats = map[string]format{
	".txt": fmtText, ".text": fmtText, ".log": fmtText, ".ini": fmtText, ".cfg": fmtText,
	".conf": fmtText, ".yaml": fmtText, ".yml": fmtText, ".toml": fmtText, ".rst": fmtText,
	".org": fmtText, ".adoc": fmtText, ".tex": fmtText, ".srt": fmtText, ".vtt": fmtText,
	".go": fmtText, ".py": fmtText, ".js": fmtText, ".ts": fmtText, ".java": fmtText,
	".c": fmtText, ".h": fmtText, ".cpp": fmtText, ".rs": fmtText, ".rb": fmtText,
	".php": fmtText, ".sh": fmtText, ".sql": fmtText, ".css": fmtText,
	".md": fmtMarkdown, ".markdown": fmtMarkdown, ".mdown": fmtMarkdown, ".mkd": fmtMarkdown,
	".html": fmtHTML, ".htm": fmtHTML, ".xhtml": fmtHTML,
	".pdf":  fmtPDF,
	".docx": fmtDOCX, ".docm": fmtDOCX, ".dotx": fmtDOCX,
	".odt": fmtODT, ".ott": fmtODT,
	".xlsx": fmtXLSX, ".xlsm": fmtXLSX, ".xltx": fmtXLSX,
	".ods": fmtODS, ".ots": fmtODS,
	".pptx": fmtPPTX, ".pptm": fmtPPTX, ".ppsx": fmtPPTX,
	".odp": fmtODP, ".otp": fmtODP,
	".rtf": fmtRTF,
	".csv": fmtCSV, ".tsv": fmtCSV, ".tab": fmtCSV,
	".json": fmtJSON, ".jsonl": fmtJSON, ".ndjson": fmtJSON, ".geojson": fmtJSON,
	".xml": fmtXML, ".svg": fmtXML, ".rss": fmtXML, ".atom": fmtXML, ".xsd": fmtXML,
	".epub": fmtEPUB,
	".eml":  fmtEML,
	".png":  fmtImage, ".jpg": fmtImage, ".jpeg": fmtImage, ".tif": fmtImage, ".tiff": fmtImage,
	".webp": fmtImage, ".heic": fmtImage, ".heif": fmtImage,
}

// genericTypes say nothing precise about the content; the extension is
// trusted over them.
var genericTypes = map[string]bool{
	"":                             true,
	"application/octet-stream":     true,
	"binary/octet-stream":          true,
	"application/zip":              true,
	"application/x-zip-compressed": true,
	"text/plain":                   true,
}

// mediaType returns the lower-case media type of a Content-Type value,
// without parameters.
func mediaType(v string) string {
	if t, _, err := mime.ParseMediaType(v); err == nil {
		return t
	}
	t, _, _ := strings.Cut(v, ";")
	return strings.ToLower(strings.TrimSpace(t))
}

// formatFor names the format from the MIME type and the file name, or
// fmtUnknown when neither is known.
func formatFor(name, mimeType string) format {
	m := mediaType(mimeType)
	byMIME := mimeFormats[m]
	byExt := extFormats[strings.ToLower(path.Ext(name))]
	switch {
	case byMIME != fmtUnknown && !genericTypes[m]:
		return byMIME
	case byExt != fmtUnknown:
		return byExt
	case byMIME != fmtUnknown:
		return byMIME
	case strings.HasPrefix(m, "text/"):
		return fmtText
	}
	return fmtUnknown
}

// sniff names the format from the first bytes of the content, fmtZip for a
// zip archive whose entries must be inspected, or fmtUnknown.
func sniff(head []byte) format {
	for m := mimetype.Detect(head); m != nil; m = m.Parent() {
		t := mediaType(m.String())
		if t == "application/zip" {
			return fmtZip
		}
		if f, ok := mimeFormats[t]; ok {
			return f
		}
	}
	return fmtUnknown
}

// sniffZip tells the zip-based formats apart by their entries: OOXML by its
// main part, ODF and EPUB by their "mimetype" entry. It only reads the small
// mimetype entry, through the zip guard's limits.
func sniffZip(data []byte) format {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return fmtUnknown
	}
	for _, f := range zr.File {
		switch f.Name {
		case "word/document.xml":
			return fmtDOCX
		case "xl/workbook.xml":
			return fmtXLSX
		case "ppt/presentation.xml":
			return fmtPPTX
		case "mimetype":
			if f.UncompressedSize64 > 128 {
				return fmtUnknown
			}
			rc, err := f.Open()
			if err != nil {
				return fmtUnknown
			}
			var buf [128]byte
			n, _ := io.ReadFull(rc, buf[:])
			rc.Close()
			if ft, ok := mimeFormats[strings.TrimSpace(string(buf[:n]))]; ok {
				return ft
			}
			return fmtUnknown
		}
	}
	return fmtUnknown
}
