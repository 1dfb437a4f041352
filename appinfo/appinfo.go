// Package appinfo carries the ExApp manifest, info.xml, into the binary so
// the demo can register the app with the simulator exactly as an admin
// registers it with Nextcloud, and so the binary knows its version.
package appinfo

import (
	_ "embed"
	"encoding/xml"
	"strings"
)

// InfoXML is the content of appinfo/info.xml.
//
//go:embed info.xml
var InfoXML []byte

// Version returns info.xml's <version>, the one place the app's version is
// written: the binary, the image tag, the release archive and the status
// all read it. It is "" only if info.xml has no version, which the tests
// rule out.
func Version() string {
	var info struct {
		Version string `xml:"version"`
	}
	if err := xml.Unmarshal(InfoXML, &info); err != nil {
		return ""
	}
	return strings.TrimSpace(info.Version)
}
