package ncsim

import (
	"bytes"
	"image"
	"image/color"
	_ "image/gif" // decoders of the image previews
	_ "image/jpeg"
	"image/png"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// handlePreview serves GET /index.php/core/preview?fileId=&x=&y=&a=: the
// preview of a file the logged-in user can see, as the search panel's
// results load it (server core/Controller/PreviewController.php,
// getPreviewByFileId, FrontpageRoute '/core/preview', checked at
// nextcloud/server d8a5d31b). As there: fileId missing or -1, x or y 0
// give 400; a file the user cannot see, a folder, or a type without a
// preview provider give 404; a preview is cached for a day
// (cacheFor(3600 * 24, false, true)). Simplified: images of the types Go
// decodes (PNG, JPEG, GIF) are scaled to fit x×y (a=1 keeps the aspect
// ratio, as Nextcloud; otherwise the image is stretched to x×y, where
// Nextcloud crops), every other type with a preview provider (hasPreview)
// gets a drawn page of grey lines, always as PNG; mimeFallback is not
// modelled (it answers 404 as without it).
func (s *Server) handlePreview(w http.ResponseWriter, r *http.Request) {
	uid, ok := s.requireLogin(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	num := func(name string, def int64) int64 {
		if v, err := strconv.ParseInt(q.Get(name), 10, 64); err == nil {
			return v
		}
		return def
	}
	id, x, y := num("fileId", -1), num("x", 32), num("y", 32)
	if id == -1 || x == 0 || y == 0 {
		writeEmptyJSON(w, http.StatusBadRequest)
		return
	}
	info, found := s.fileByID(uid, id)
	if !found || info.IsDir || !hasPreview(info.MIME) {
		writeEmptyJSON(w, http.StatusNotFound)
		return
	}
	x, y = min(max(x, 1), 1024), min(max(y, 1), 1024)
	var img image.Image
	if strings.HasPrefix(info.MIME, "image/") {
		if data, ok := s.ReadFile(uid, info.Path); ok {
			if src, _, err := image.Decode(bytes.NewReader(data)); err == nil {
				img = scaleImage(src, int(x), int(y), q.Get("a") == "1" || q.Get("a") == "true")
			}
		}
	}
	if img == nil {
		img = drawnPage(int(x), int(y))
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		http.Error(w, "ncsim: preview: "+err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "image/png")
	h.Set("Cache-Control", "private, max-age=86400, immutable")
	h.Set("Expires", time.Now().Add(24*time.Hour).UTC().Format(http.TimeFormat))
	_, _ = w.Write(buf.Bytes())
}

// writeEmptyJSON answers a DataResponse([]) with status.
func writeEmptyJSON(w http.ResponseWriter, status int) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte("[]"))
}

// scaleImage scales src into w×h by nearest neighbour: to fit inside it,
// keeping the aspect ratio, when keep is set.
func scaleImage(src image.Image, w, h int, keep bool) image.Image {
	b := src.Bounds()
	if b.Dx() == 0 || b.Dy() == 0 {
		return nil
	}
	if keep {
		k := min(float64(w)/float64(b.Dx()), float64(h)/float64(b.Dy()))
		w, h = max(1, int(float64(b.Dx())*k)), max(1, int(float64(b.Dy())*k))
	}
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for py := range h {
		for px := range w {
			out.Set(px, py, src.At(b.Min.X+px*b.Dx()/w, b.Min.Y+py*b.Dy()/h))
		}
	}
	return out
}

// drawnPage is a white page with grey lines of text.
func drawnPage(w, h int) image.Image {
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	white, grey := color.RGBA{255, 255, 255, 255}, color.RGBA{170, 170, 170, 255}
	for py := range h {
		for px := range w {
			c := white
			line := py*10/max(h, 1) >= 1 && py*10/max(h, 1) <= 8 && (py*20/max(h, 1))%2 == 0
			if line && px >= w/8 && px < w*7/8-(py*37%(w/4+1)) {
				c = grey
			}
			out.Set(px, py, c)
		}
	}
	return out
}
