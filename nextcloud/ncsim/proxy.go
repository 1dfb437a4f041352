package ncsim

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"
)

// proxyPrefix is the AppAPI proxy route (ExAppProxyController).
const proxyPrefix = "/index.php/apps/app_api/proxy/"

// dotDotSegment finds a parent-directory segment, plain or percent-encoded
// (ExAppProxyController::prepareProxy since app_api v32.0.10/v33.0.4; older
// releases rely on the web server resolving plain "/../" before PHP).
var dotDotSegment = regexp.MustCompile(`(?:^|/|%2[fF])(?:\.|%2[eE]){2}(?:/|%2[fF]|$)`)

// proxyStripResponse are the headers AppAPI drops from ExApp answers.
var proxyStripResponse = []string{"aa-version", "ex-app-id", "authorization-app-api", "ex-app-version", "aa-request-id"}

// handleProxy serves GET|POST|PUT|DELETE /index.php/apps/app_api/proxy/{appId}/{other}:
// it forwards the request to the ExApp if a route of its info.xml allows
// path, verb and caller. Denials are a plain 404, an unreachable app 500.
func (s *Server) handleProxy(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, proxyPrefix)
	appID, other, _ := strings.Cut(rest, "/")
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodPost, http.MethodPut, http.MethodDelete:
		if other == "" {
			// Only the GET route accepts an empty path.
			w.Header().Set("Allow", "GET")
			http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
			return
		}
	default:
		w.Header().Set("Allow", "GET, POST, PUT, DELETE")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		return
	}
	p := s.authenticate(r)
	uid := ""
	if p.hasUser() {
		uid = p.uid
	}
	ref, ok := s.exAppRef(appID)
	if appID == "" || dotDotSegment.MatchString(other) || !ok || !ref.enabled {
		s.proxyNotFound(w, r, "unknown or disabled app, or '..' in path")
		return
	}
	route, ok := s.proxyRoute(appID, other, r.Method, uid)
	if !ok {
		s.proxyNotFound(w, r, "route does not pass the access check")
		return
	}
	body, err := proxyBody(r)
	if err != nil {
		s.logf("ncsim: proxy %s: reading the request body: %v", appID, err)
		http.Error(w, "Request body too large or unreadable", http.StatusRequestEntityTooLarge)
		return
	}
	ip := clientIP(r)
	throttled := len(route.BruteforceProtection) > 0 && s.attempts(ip, throttleAppAPI) > 0
	if len(route.BruteforceProtection) > 0 && !s.throttleWait(w, r, ip) {
		return
	}
	resp, cancel, err := s.callExApp(r.Context(), ref, exAppCall{
		method: r.Method, route: proxyTarget(other, phpQuery(r.URL.RawQuery)), uid: uid, requestID: requestID(),
		header: proxyRequestHeader(r, route), host: r.Host, body: body, contentLength: int64(body.Len()),
	})
	if err != nil {
		s.logf("ncsim: proxy %s: %v", appID, err)
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	defer cancel()
	defer resp.Body.Close()
	if len(route.BruteforceProtection) > 0 {
		switch {
		case throttled && resp.StatusCode >= 200 && resp.StatusCode < 300:
			s.resetAttempts(ip, throttleAppAPI)
		case slices.Contains(route.BruteforceProtection, resp.StatusCode):
			s.registerAttempt(ip, throttleAppAPI)
		}
	}
	s.writeProxyResponse(w, other, resp)
}

func (s *Server) proxyNotFound(w http.ResponseWriter, r *http.Request, why string) {
	s.logf("ncsim: proxy 404 for %s %s: %s", r.Method, r.URL.Path, why)
	http.NotFound(w, r)
}

// throttleWait applies the brute-force delay of routes with
// bruteforce_protection; at the maximum it answers 429 and reports false.
func (s *Server) throttleWait(w http.ResponseWriter, r *http.Request, ip string) bool {
	n := s.attempts(ip, throttleAppAPI)
	if n == 0 {
		return true
	}
	if n > s.throttleMaxAttempts() {
		http.Error(w, "Reached maximum delay", http.StatusTooManyRequests)
		return false
	}
	t := time.NewTimer(s.throttleDelay(n))
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// proxyRoute finds the route that lets uid call other with method.
func (s *Server) proxyRoute(appID, other, method, uid string) (Route, bool) {
	s.mu.Lock()
	a, ok := s.apps[appID]
	var routes []Route
	if ok {
		routes = append(routes, a.routes...)
	}
	s.mu.Unlock()
	admin := uid != "" && s.isAdmin(uid)
	allowed := func(l AccessLevel) bool {
		switch l {
		case AccessPublic:
			return true
		case AccessUser:
			return uid != ""
		case AccessAdmin:
			return admin
		}
		return false
	}
	for _, rt := range routes {
		verbOK := strings.Contains(strings.ToLower(rt.Verb), strings.ToLower(method))
		switch s.release().routeMatching() {
		case matchLegacy:
			// preg_match('/'.url.'/i', other): unanchored, fall through on denial.
			re, err := pcreToRE2(rt.URL, "i")
			if err == nil && re.MatchString(other) && verbOK && allowed(rt.AccessLevel) {
				return rt, true
			}
			continue
		case matchAnchoredBare:
			// ~^(?:url)~i on the bare path; the first match decides.
			re, err := regexp.Compile(`(?i)^(?:` + rt.URL + `)`)
			if err == nil && re.MatchString(other) && verbOK {
				return rt, allowed(rt.AccessLevel)
			}
			continue
		}
		// ~^(?:url)~i on "/"+other, then the bare path; first match decides.
		re, err := regexp.Compile(`(?i)^(?:` + rt.URL + `)`)
		if err != nil {
			continue
		}
		if (re.MatchString("/"+other) || re.MatchString(other)) && verbOK {
			return rt, allowed(rt.AccessLevel)
		}
	}
	return Route{}, false
}

// proxyTarget is the path and query sent to the ExApp.
func proxyTarget(other, rawQuery string) string {
	target := (&url.URL{Path: "/" + other}).EscapedPath()
	if rawQuery != "" {
		target += "?" + rawQuery
	}
	return target
}

// proxyRequestHeader is buildHeadersWithExclude: every browser header but
// content-length, x-origin-ip, authorization-app-api and the route's
// headers_to_exclude, plus x-origin-ip.
func proxyRequestHeader(r *http.Request, route Route) http.Header {
	exclude := map[string]bool{"content-length": true, "x-origin-ip": true, "authorization-app-api": true}
	for _, h := range route.HeadersToExclude {
		exclude[strings.ToLower(h)] = true
	}
	out := http.Header{}
	for k, vs := range r.Header {
		if !exclude[strings.ToLower(k)] {
			out[k] = append([]string(nil), vs...)
		}
	}
	out.Set("X-Origin-Ip", clientIP(r))
	return out
}

// maxProxyBody caps a request body forwarded by the proxy (PHP's
// post_max_size in Nextcloud's .user.ini is 512M).
const maxProxyBody = 512 << 20

// proxyBody reads the whole request body before anything is forwarded, as
// PHP has it before AppAPI runs. Streaming it instead lets net/http discard
// the unread rest of the body under the upstream transport once the answer
// is being written, which cut answers 4096 bytes in (proxy_body_test.go).
func proxyBody(r *http.Request) (*bytes.Reader, error) {
	if r.Method == http.MethodGet || r.Method == http.MethodHead || r.Body == nil {
		return bytes.NewReader(nil), nil
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, maxProxyBody+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxProxyBody {
		return nil, fmt.Errorf("more than %d bytes", maxProxyBody)
	}
	return bytes.NewReader(b), nil
}

// writeProxyResponse is createProxyResponse.
func (s *Server) writeProxyResponse(w http.ResponseWriter, other string, resp *http.Response) {
	isHTML := path.Ext(other) == ".html"
	h := w.Header()
	for k, vs := range resp.Header {
		if slices.Contains(proxyStripResponse, strings.ToLower(k)) {
			continue
		}
		h[k] = []string{vs[0]}
	}
	upstreamType := resp.Header.Get("Content-Type")
	if upstreamType == "" {
		if t := proxyGuessType(other); t != "" {
			h.Set("Content-Type", t)
		}
	}
	if !isHTML && resp.Header.Get("Cache-Control") == "" &&
		upstreamType != "application/json" && upstreamType != "application/x-tar" {
		h.Set("Cache-Control", "private, max-age=3600, must-revalidate")
		h.Set("Expires", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat))
	}
	if !isHTML {
		w.WriteHeader(resp.StatusCode)
		copyFlushing(w, resp.Body)
		return
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	nonce := randomNonce()
	body = bytes.ReplaceAll(body, []byte("<script"), []byte(`<script nonce="`+nonce+`"`))
	h.Del("Content-Length")
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(body)
}

// proxyGuessType maps an extension to the MIME type Nextcloud's detector
// gives; "" for unknown (octet-stream is not set).
func proxyGuessType(p string) string {
	switch strings.ToLower(strings.TrimPrefix(path.Ext(p), ".")) {
	case "html", "htm":
		return "text/html"
	case "js", "mjs":
		return "application/javascript"
	case "css":
		return "text/css"
	case "json", "map":
		return "application/json"
	case "svg":
		return "image/svg+xml"
	case "png":
		return "image/png"
	case "jpg", "jpeg":
		return "image/jpeg"
	case "gif":
		return "image/gif"
	case "ico":
		return "image/x-icon"
	case "woff":
		return "font/woff"
	case "woff2":
		return "font/woff2"
	case "ttf":
		return "font/ttf"
	case "txt":
		return "text/plain"
	case "wasm":
		return "application/wasm"
	}
	return ""
}

// randomNonce returns a CSP nonce.
func randomNonce() string {
	return strings.NewReplacer("+", "-", "/", "_").Replace(randomToken(32))
}

// copyFlushing passes a streamed body on as it arrives: with stream =>
// true the proxied response's body is a PHP stream
// (OC\Http\Client\Response::getBody detaches it), ProxyResponse::callback
// fpassthru()s it, and Nextcloud's .user.ini sets output_buffering=false,
// so each read goes out at once (a web server in front may still buffer).
func copyFlushing(w http.ResponseWriter, body io.Reader) {
	rc := http.NewResponseController(w)
	buf := make([]byte, 8192) // fpassthru reads 8 KiB at a time
	for {
		n, err := body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			_ = rc.Flush()
		}
		if err != nil {
			return
		}
	}
}
