// Package l10n carries the app's translations, the l10n/<lang>.json
// bundles and the <lang>.js scripts generated from them
// (frontend/scripts/l10n.mjs), into the binary. In production AppAPI copies
// the release's l10n/ into Nextcloud's apps folder and Nextcloud serves
// it; the demo installs them into the simulator the same way.
package l10n

import "embed"

// Files are the translation files, at the root of the file system.
//
//go:embed *.js *.json
var Files embed.FS
