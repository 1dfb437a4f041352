// Package frontend embeds the built search panel (dist/) into the binary.
// dist/ holds what AppAPI loads through its proxy: js/, css/ and img/.
package frontend

import (
	"embed"
	"io/fs"
)

//go:embed dist
var dist embed.FS

// Assets returns the built frontend rooted at dist/.
func Assets() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // dist is embedded at build time; this cannot fail
	}
	return sub
}
