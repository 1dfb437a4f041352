// Package appinfo carries the ExApp manifest, info.xml, into the binary so
// the demo can register the app with the simulator exactly as an admin
// registers it with Nextcloud.
package appinfo

import _ "embed"

// InfoXML is the content of appinfo/info.xml.
//
//go:embed info.xml
var InfoXML []byte
