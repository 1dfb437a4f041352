package ncsim

import "strings"

// dirMIME is the MIME type Nextcloud gives folders.
const dirMIME = "httpd/unix-directory"

// mimeTypes maps lower-case extensions to Nextcloud's MIME type, after
// resources/config/mimetypemapping.dist.json: the first entry is the type
// Nextcloud stores and reports in PROPFIND, the optional second one the
// "secure" type it sends as Content-Type on download.
var mimeTypes = map[string][2]string{
	"7z":       {"application/x-7z-compressed"},
	"avi":      {"video/x-msvideo"},
	"bash":     {"text/x-shellscript"},
	"bmp":      {"image/bmp"},
	"bz2":      {"application/x-bzip2"},
	"c":        {"text/x-c"},
	"cc":       {"text/x-c"},
	"cnf":      {"text/plain"},
	"conf":     {"text/plain"},
	"cpp":      {"text/x-c++src"},
	"css":      {"text/css"},
	"csv":      {"text/csv"},
	"doc":      {"application/msword"},
	"docm":     {"application/vnd.ms-word.document.macroEnabled.12"},
	"docx":     {"application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
	"dot":      {"application/msword"},
	"dotx":     {"application/vnd.openxmlformats-officedocument.wordprocessingml.template"},
	"eml":      {"message/rfc822"},
	"epub":     {"application/epub+zip"},
	"eps":      {"application/postscript"},
	"flac":     {"audio/flac"},
	"gif":      {"image/gif"},
	"gz":       {"application/x-gzip"},
	"gzip":     {"application/x-gzip"},
	"h":        {"text/x-h"},
	"heic":     {"image/heic"},
	"heif":     {"image/heif"},
	"htm":      {"text/html", "text/plain"},
	"html":     {"text/html", "text/plain"},
	"ical":     {"text/calendar"},
	"ics":      {"text/calendar"},
	"java":     {"text/x-java-source"},
	"jpeg":     {"image/jpeg"},
	"jpg":      {"image/jpeg"},
	"js":       {"application/javascript", "text/plain"},
	"json":     {"application/json", "text/plain"},
	"m4a":      {"audio/mp4"},
	"markdown": {"text/markdown"},
	"md":       {"text/markdown"},
	"mdown":    {"text/markdown"},
	"mdwn":     {"text/markdown"},
	"mkd":      {"text/markdown"},
	"mkv":      {"video/x-matroska"},
	"mobi":     {"application/x-mobipocket-ebook"},
	"mov":      {"video/quicktime"},
	"mp3":      {"audio/mpeg"},
	"mp4":      {"video/mp4"},
	"mpeg":     {"video/mpeg"},
	"odg":      {"application/vnd.oasis.opendocument.graphics"},
	"odp":      {"application/vnd.oasis.opendocument.presentation"},
	"ods":      {"application/vnd.oasis.opendocument.spreadsheet"},
	"odt":      {"application/vnd.oasis.opendocument.text"},
	"ogg":      {"audio/ogg"},
	"org":      {"text/org", "text/plain"},
	"otf":      {"application/font-sfnt"},
	"pdf":      {"application/pdf"},
	"php":      {"application/x-php", "text/x-php"},
	"pl":       {"application/x-perl"},
	"png":      {"image/png"},
	"ppt":      {"application/vnd.ms-powerpoint"},
	"pptx":     {"application/vnd.openxmlformats-officedocument.presentationml.presentation"},
	"ps":       {"application/postscript"},
	"psd":      {"application/x-photoshop"},
	"py":       {"text/x-python"},
	"rar":      {"application/x-rar-compressed"},
	"rss":      {"application/rss+xml"},
	"rtf":      {"text/rtf"},
	"sh":       {"text/x-shellscript"},
	"svg":      {"image/svg+xml", "text/plain"},
	"tar":      {"application/x-tar"},
	"tex":      {"application/x-tex"},
	"tgz":      {"application/x-compressed"},
	"tif":      {"image/tiff"},
	"tiff":     {"image/tiff"},
	"ttf":      {"application/font-sfnt"},
	"txt":      {"text/plain"},
	"vcf":      {"text/vcard"},
	"wav":      {"audio/wav"},
	"webm":     {"video/webm"},
	"webp":     {"image/webp"},
	"xls":      {"application/vnd.ms-excel"},
	"xlsm":     {"application/vnd.ms-excel.sheet.macroEnabled.12"},
	"xlsx":     {"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
	"xml":      {"application/xml", "text/plain"},
	"yaml":     {"application/yaml", "text/plain"},
	"yml":      {"application/yaml", "text/plain"},
	"zip":      {"application/zip"},
}

// mimeFor returns the MIME type Nextcloud stores for a file name. Unknown
// extensions give application/octet-stream, as Nextcloud's detectPath does.
func mimeFor(name string) string {
	if t, ok := mimeTypes[extOf(name)]; ok {
		return t[0]
	}
	return "application/octet-stream"
}

// secureMIMEFor returns the Content-Type Nextcloud sends on download: the
// secure alternative (text/plain for html, json, svg, ...) when one exists.
func secureMIMEFor(name string) string {
	if t, ok := mimeTypes[extOf(name)]; ok {
		if t[1] != "" {
			return t[1]
		}
		return t[0]
	}
	return "application/octet-stream"
}

// extOf returns the lower-case extension of name without the dot ("" for
// none). Leading dots (hidden files) do not start an extension.
func extOf(name string) string {
	trimmed := strings.TrimLeft(name, ".")
	i := strings.LastIndexByte(trimmed, '.')
	if i < 0 {
		return ""
	}
	return strings.ToLower(trimmed[i+1:])
}

// hasPreview reports whether Nextcloud's default preview providers (PNG,
// JPEG, GIF, BMP, WebP, HEIC, MP3, TXT, MarkDown, OpenDocument) handle mime.
func hasPreview(mime string) bool {
	switch mime {
	case "image/png", "image/jpeg", "image/gif", "image/bmp", "image/webp", "image/heic",
		"audio/mpeg", "text/plain", "text/markdown":
		return true
	}
	return strings.HasPrefix(mime, "application/vnd.oasis.opendocument.")
}
