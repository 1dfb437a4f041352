package extract

import (
	"bytes"
	"encoding/xml"
	"strings"
)

// xml extracts the character data of a generic XML document, one line per
// run of text between tags; markup, comments and processing instructions
// are dropped. The parser is lenient (HTML entities, sloppy markup), and
// the document's declared encoding is honoured.
func (j *job) xml() error {
	var sb strings.Builder
	flush := func() error {
		s := collapseSpace(sb.String())
		sb.Reset()
		return j.b.line(s)
	}
	err := j.walkXML(bytes.NewReader(j.data), false, func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.CharData:
			sb.Write(t)
		case xml.StartElement, xml.EndElement:
			return flush()
		}
		return nil
	})
	if err != nil {
		return j.corrupt(err, "xml")
	}
	return flush()
}
