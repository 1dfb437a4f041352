package shell

import (
	"fmt"
	"html/template"
	"net/url"
	"strings"
)

// filesTemplate is the simulated Files app: breadcrumbs and the folder's
// rows, each with the data a @nextcloud/files Node carries and an actions
// button. Its script (/apps/files/js/ncsim-files.js) opens the actions
// menu with the file actions registered through
// window._nc_fileactions, as @nextcloud/files' registerFileAction does.
var filesTemplate = template.Must(template.New("files").Parse(`<div id="app-content" class="ncsim-app app-files">
<h2>Files</h2>
<nav class="files-breadcrumbs" aria-label="Current directory path">{{range .Crumbs}}<a href="{{.Href}}">{{.Name}}</a><span aria-hidden="true">›</span>{{end}}</nav>
{{if .Rows}}<table class="files-list" id="files-list">
<thead><tr><th>Name</th><th>Size</th><th>Modified</th><th><span class="hidden-visually">Actions</span></th></tr></thead>
<tbody>
{{range .Rows}}<tr data-cy-files-list-row data-cy-files-list-row-fileid="{{.ID}}" data-cy-files-list-row-name="{{.Name}}"
 data-node="{{.Node}}">
<td class="files-list__name"><a href="{{.Href}}"><img src="{{.Icon}}" alt="">{{.Name}}</a></td>
<td class="files-list__size">{{.Size}}</td>
<td class="files-list__mtime">{{.Modified}}</td>
<td class="files-list__actions"><button type="button" class="files-list__actions-toggle" aria-haspopup="menu" aria-expanded="false" aria-label="Actions for {{.Name}}">⋯</button></td>
</tr>
{{end}}</tbody></table>
{{else}}<p class="ncsim-muted">No files in here</p>{{end}}
</div>`))

// FileRow is one row of the Files list.
type FileRow struct {
	ID               int64
	Name, Href, Icon string
	Size, Modified   string
	Node             string // JSON of the node, for the actions
}

// Crumb is one breadcrumb of the Files list.
type Crumb struct{ Name, Href string }

// FilesList renders the Files app's content: crumbs, then rows (folders
// first, as the caller orders them).
func FilesList(crumbs []Crumb, rows []FileRow) (template.HTML, error) {
	return fragment(filesTemplate, struct {
		Crumbs []Crumb
		Rows   []FileRow
	}{crumbs, rows})
}

// Crumbs returns the breadcrumbs of dir, from "All files" down.
func Crumbs(dir string) []Crumb {
	out := []Crumb{{Name: "All files", Href: "/index.php/apps/files/?dir=/"}}
	cur := ""
	for _, part := range strings.Split(strings.Trim(dir, "/"), "/") {
		if part == "" {
			continue
		}
		cur += "/" + part
		out = append(out, Crumb{Name: part, Href: "/index.php/apps/files/?dir=" + url.QueryEscape(cur)})
	}
	return out
}

// HumanSize formats a size in bytes as the Files list shows it.
func HumanSize(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
}

// viewerTemplate is a simple viewer: the file's name and details, its text
// for text files, and a download link.
var viewerTemplate = template.Must(template.New("viewer").Parse(`<div id="app-content" class="ncsim-app viewer" data-fileid="{{.ID}}">
<div class="viewer__header"><h2 id="viewer-title">{{.Title}}</h2>
<a class="ncsim-button" href="{{.Back}}">Back to {{.BackName}}</a>{{if .Download}} <a class="ncsim-button" href="{{.Download}}" download>Download</a>{{end}}</div>
<dl class="viewer__meta"><dt>Path</dt><dd>{{.Path}}</dd><dt>Type</dt><dd>{{.MIME}}</dd><dt>Size</dt><dd>{{.Size}}</dd><dt>Modified</dt><dd>{{.Modified}}</dd></dl>
{{if .HasText}}<pre class="viewer__text" id="viewer-text">{{.Text}}</pre>{{else}}<p class="ncsim-muted">No preview for this type of file.</p>{{end}}
</div>`))

// Viewer fills the simple viewer of a file or note.
type Viewer struct {
	ID                       int64
	Title, Path, MIME, Size  string
	Modified, Back, BackName string
	Download, Text           string
	HasText                  bool
}

// ViewerContent renders v for a page's Content.
func ViewerContent(v Viewer) (template.HTML, error) { return fragment(viewerTemplate, v) }

// FileNotFound is the content of Nextcloud's "File not found" page.
const FileNotFound template.HTML = `<div id="app-content" class="ncsim-app"><h2>File not found</h2><p class="ncsim-muted">The file does not exist, or you cannot access it.</p></div>`
