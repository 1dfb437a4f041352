package extract

import (
	"encoding/xml"
	"net/url"
	"path"
	"strings"
)

// epub extracts an EPUB book: the spine's XHTML documents in reading
// order, each through the HTML extractor, so chapter headings become
// heading lines. Title comes from the package metadata.
func (j *job) epub() error {
	a, err := j.openZip()
	if err != nil {
		return err
	}
	opf := a.epubPackage()
	if opf == "" {
		return j.invalid("corrupt epub: no package document")
	}
	j.title = a.dcTitle(opf)
	docs, err := a.epubSpine(opf)
	if err != nil {
		return err
	}
	for _, d := range docs {
		data, err := a.readAll(d)
		if isNoEntry(err) {
			continue
		}
		if err != nil {
			return j.corrupt(err, d)
		}
		if _, err := htmlInto(j.b, data); err != nil {
			return j.corrupt(err, d)
		}
		j.b.end()
	}
	return nil
}

// epubPackage finds the package document (.opf) through
// META-INF/container.xml, or as the first .opf entry.
func (a *archive) epubPackage() string {
	var opf string
	_ = a.walk("META-INF/container.xml", func(tok xml.Token) error {
		if t, ok := tok.(xml.StartElement); ok && t.Name.Local == "rootfile" && opf == "" {
			opf = strings.TrimPrefix(path.Clean(attr(t, "full-path")), "/")
		}
		return nil
	})
	if a.has(opf) {
		return opf
	}
	for _, f := range a.zr.File {
		if strings.HasSuffix(strings.ToLower(f.Name), ".opf") {
			return f.Name
		}
	}
	return ""
}

// epubSpine lists the entry names of the spine's (X)HTML documents.
func (a *archive) epubSpine(opf string) ([]string, error) {
	type item struct{ href, media string }
	manifest := map[string]item{}
	var spine []string
	err := a.walk(opf, func(tok xml.Token) error {
		t, ok := tok.(xml.StartElement)
		if !ok {
			return nil
		}
		switch t.Name.Local {
		case "item":
			manifest[attr(t, "id")] = item{attr(t, "href"), attr(t, "media-type")}
		case "itemref":
			spine = append(spine, attr(t, "idref"))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	dir := path.Dir(opf)
	var out []string
	for _, id := range spine {
		it, ok := manifest[id]
		if !ok || !(strings.Contains(it.media, "html") || it.media == "") {
			continue
		}
		href, _, _ := strings.Cut(it.href, "#")
		if u, err := url.PathUnescape(href); err == nil {
			href = u
		}
		out = append(out, strings.TrimPrefix(path.Join(dir, href), "/"))
	}
	return out, nil
}
