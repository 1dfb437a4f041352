package ncsim

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// AccessLevel is the access level of an ExApp route in the AppAPI proxy.
type AccessLevel int

// Access levels, with AppAPI's numeric values.
const (
	AccessPublic AccessLevel = 0 // anyone, anonymous included
	AccessUser   AccessLevel = 1 // any logged-in user
	AccessAdmin  AccessLevel = 2 // a logged-in member of the admin group
)

// String returns the info.xml name of the level.
func (l AccessLevel) String() string {
	switch l {
	case AccessPublic:
		return "PUBLIC"
	case AccessUser:
		return "USER"
	case AccessAdmin:
		return "ADMIN"
	}
	return strconv.Itoa(int(l))
}

// Route is one <external-app><routes><route> of an ExApp: what the AppAPI
// proxy forwards.
type Route struct {
	URL         string      // regex, matched as AppAPI of Server.NextcloudVersion does (version.go)
	Verb        string      // "GET" or a comma list such as "GET,POST"
	AccessLevel AccessLevel // PUBLIC, USER or ADMIN
	// HeadersToExclude are request headers the proxy does not forward
	// (compared case-insensitively), e.g. "authorization".
	HeadersToExclude []string
	// BruteforceProtection lists ExApp response statuses that count as a
	// failed attempt for the caller's IP.
	BruteforceProtection []int
}

// EnvVarDecl is a declared <environment-variables><variable>.
type EnvVarDecl struct {
	Name        string
	DisplayName string
	Description string
	Default     string
}

// ExAppRegistration describes an ExApp to register with the manual_install
// daemon, the way `occ app_api:app:register --json-info` or an info.xml
// does.
type ExAppRegistration struct {
	ID      string // [a-z0-9_], e.g. "hybrid_search"
	Name    string // display name
	Version string
	// URL is where Nextcloud reaches the app, "http://127.0.0.1:<port>".
	// When empty it is http://127.0.0.1:<Port>.
	URL string
	// Port is APP_PORT. When zero it is URL's port, or else the first port
	// in 23000-23999 that no other registered app uses.
	Port int
	// Host is APP_HOST; default "127.0.0.1" (manual_install, host network).
	Host string
	// Secret is APP_SECRET; when empty a 128-character secret is generated.
	Secret string
	// PersistentStorage is APP_PERSISTENT_STORAGE; default "/nc_app_<id>_data".
	PersistentStorage string
	Routes            []Route
	EnvVars           []EnvVarDecl
	// EnvOverrides sets declared variables (as deploy options do); names
	// that were not declared are ignored, as AppAPI does.
	EnvOverrides map[string]string
	// FromInfoXML is set by ParseInfoXML: the routes came from an info.xml,
	// where headers_to_exclude is a string. AppAPI up to v34 stores a
	// string as "[]" (ExAppMapper::registerExAppRoutes), so on Nextcloud
	// 32-34 such routes exclude nothing; v35 decodes it. Routes given as
	// JSON (--json-info) keep their list on every version.
	FromInfoXML bool
}

// EnvVar is one environment variable handed to an ExApp.
type EnvVar struct {
	Name, Value string
}

// Env is the environment AppAPI gives an ExApp container, in a stable order.
type Env []EnvVar

// List returns the variables as "NAME=VALUE" strings, for os/exec.
func (e Env) List() []string {
	out := make([]string, len(e))
	for i, v := range e {
		out[i] = v.Name + "=" + v.Value
	}
	return out
}

// Lookup returns the value of name and whether it is set.
func (e Env) Lookup(name string) (string, bool) {
	for _, v := range e {
		if v.Name == name {
			return v.Value, true
		}
	}
	return "", false
}

// Get returns the value of name, or "".
func (e Env) Get(name string) string {
	v, _ := e.Lookup(name)
	return v
}

// AppStatus is an ExApp's state as AppAPI keeps it.
type AppStatus struct {
	Enabled  bool
	Progress int    // init progress 0..100
	Error    string // status.error; "" when none
	Action   string // "init" while initialising, "" otherwise
	Type     string // "install" until init reaches 100, "" afterwards
}

// exApp is a registered external app. Guarded by Server.mu.
type exApp struct {
	id, name, version string
	secret            string
	baseURL           string
	port              int
	host              string
	storage           string
	routes            []Route
	env               Env
	enabled           bool
	status            AppStatus
	initStart         time.Time
	// enableDone and enableErr record the last enable step (heartbeat and
	// PUT /enabled) that init progress 100 triggered.
	enableDone bool
	enableErr  error
}

// installing reports whether the app is in its install or update phase,
// when AppAPI accepts its status reports although it is disabled.
func (a *exApp) installing() bool { return a.status.Type == "install" || a.status.Type == "update" }

// RegisterExApp registers an ExApp as `occ app_api:app:register` does with
// the manual_install daemon: disabled, status type "install". It returns the
// environment of §2 (AA_VERSION, APP_SECRET, APP_ID, APP_DISPLAY_NAME,
// APP_VERSION, APP_HOST, APP_PORT, APP_PERSISTENT_STORAGE, NEXTCLOUD_URL,
// COMPUTE_DEVICE, then declared variables with a non-empty value). It fails
// if the id is taken, a field is missing or a route is invalid. Start the
// app with the env, then call Install.
func (s *Server) RegisterExApp(reg ExAppRegistration) (Env, error) {
	s.init()
	if err := validateRegistration(reg); err != nil {
		return nil, fmt.Errorf("register exapp %s: %w", reg.ID, err)
	}
	base, urlPort, err := exAppURL(reg)
	if err != nil {
		return nil, fmt.Errorf("register exapp %s: %w", reg.ID, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.apps[reg.ID]; ok {
		return nil, fmt.Errorf("register exapp %s: already registered", reg.ID)
	}
	port := reg.Port
	if port == 0 {
		port = urlPort
	}
	if port == 0 {
		port = s.freeExAppPortLocked()
	}
	if base == "" {
		base = "http://127.0.0.1:" + strconv.Itoa(port)
	}
	a := &exApp{
		id: reg.ID, name: reg.Name, version: reg.Version,
		secret: reg.Secret, baseURL: base, port: port, host: reg.Host, storage: reg.PersistentStorage,
		routes: s.storedRoutes(reg),
		status: AppStatus{Type: "install"},
	}
	if a.secret == "" {
		a.secret = randomToken(128)
	}
	if a.host == "" {
		a.host = "127.0.0.1"
	}
	if a.storage == "" {
		a.storage = "/nc_app_" + reg.ID + "_data"
	}
	a.env = s.buildEnv(a, reg)
	s.apps[reg.ID] = a
	s.logf("ncsim: registered ExApp %s %s at %s", a.id, a.version, a.baseURL)
	return append(Env(nil), a.env...), nil
}

// storedRoutes is what AppAPI keeps of reg's routes on the simulated
// version: before v35, headers_to_exclude from an info.xml is dropped.
func (s *Server) storedRoutes(reg ExAppRegistration) []Route {
	out := make([]Route, len(reg.Routes))
	for i, r := range reg.Routes {
		r.HeadersToExclude = append([]string(nil), r.HeadersToExclude...)
		r.BruteforceProtection = append([]int(nil), r.BruteforceProtection...)
		if reg.FromInfoXML && !s.release().infoXMLHeadersToExclude() && len(r.HeadersToExclude) > 0 {
			s.logf("ncsim: Nextcloud %s ignores headers_to_exclude %v of route %s from info.xml", s.release(), r.HeadersToExclude, r.URL)
			r.HeadersToExclude = nil
		}
		out[i] = r
	}
	return out
}

// Routes returns the routes AppAPI stored for a registered app, as the
// proxy applies them. It panics if the app is unknown.
func (s *Server) Routes(appID string) []Route {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Route(nil), s.mustApp(appID).routes...)
}

func validateRegistration(reg ExAppRegistration) error {
	switch {
	case reg.ID == "":
		return errors.New("empty id")
	case reg.Name == "":
		return errors.New("empty name")
	case reg.Version == "":
		return errors.New("empty version")
	}
	for _, c := range reg.ID {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return fmt.Errorf("invalid id %q", reg.ID)
		}
	}
	if strings.Contains(reg.Secret, ":") {
		return errors.New("secret must not contain ':'")
	}
	if reg.Port < 0 || reg.Port > 65535 {
		return fmt.Errorf("invalid port %d", reg.Port)
	}
	for i, r := range reg.Routes {
		if strings.TrimSpace(r.URL) == "" {
			return fmt.Errorf("route #%d: 'url' must be a non-empty string", i)
		}
		if strings.TrimSpace(r.Verb) == "" {
			return fmt.Errorf("route '%s': 'verb' must be a non-empty string (e.g. 'GET' or 'GET,POST')", r.URL)
		}
		if r.AccessLevel < AccessPublic || r.AccessLevel > AccessAdmin {
			return fmt.Errorf("route '%s': invalid 'access_level' %d (allowed: 0=PUBLIC, 1=USER, 2=ADMIN)", r.URL, r.AccessLevel)
		}
	}
	for i, v := range reg.EnvVars {
		if strings.TrimSpace(v.Name) == "" {
			return fmt.Errorf("variable #%d: 'name' must be a non-empty string", i)
		}
	}
	return nil
}

// exAppURL normalises reg.URL and returns its port (0 when it has none).
func exAppURL(reg ExAppRegistration) (string, int, error) {
	if reg.URL == "" {
		return "", 0, nil
	}
	u, err := url.Parse(reg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", 0, fmt.Errorf("invalid url %q", reg.URL)
	}
	base := u.Scheme + "://" + u.Host + strings.TrimSuffix(u.Path, "/")
	_, p, err := net.SplitHostPort(u.Host)
	if err != nil {
		return base, 0, nil
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		return "", 0, fmt.Errorf("invalid url %q", reg.URL)
	}
	return base, port, nil
}

// freeExAppPortLocked follows ExAppService::getExAppFreePort.
func (s *Server) freeExAppPortLocked() int {
	used := map[int]bool{}
	for _, a := range s.apps {
		used[a.port] = true
	}
	for p := 23000; p <= 23999; p++ {
		if !used[p] {
			return p
		}
	}
	return 0
}

// buildEnv follows DockerActions::buildDeployEnvs and ExAppEnvVarsHelper.
func (s *Server) buildEnv(a *exApp, reg ExAppRegistration) Env {
	env := Env{
		{"AA_VERSION", s.AppAPIVersion},
		{"APP_SECRET", a.secret},
		{"APP_ID", a.id},
		{"APP_DISPLAY_NAME", a.name},
		{"APP_VERSION", a.version},
		{"APP_HOST", a.host},
		{"APP_PORT", strconv.Itoa(a.port)},
		{"APP_PERSISTENT_STORAGE", a.storage},
		{"NEXTCLOUD_URL", s.BaseURL},
		{"COMPUTE_DEVICE", "CPU"},
	}
	for _, v := range reg.EnvVars {
		value := v.Default
		if o, ok := reg.EnvOverrides[v.Name]; ok {
			value = o
		}
		if value == "" {
			continue
		}
		replaced := false
		for i := range env {
			if env[i].Name == v.Name {
				env[i].Value, replaced = value, true
			}
		}
		if !replaced {
			env = append(env, EnvVar{v.Name, value})
		}
	}
	return env
}

// ExAppEnv returns the environment of a registered app. It panics if the
// app is unknown.
func (s *Server) ExAppEnv(appID string) Env {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	return append(Env(nil), s.mustApp(appID).env...)
}

// AppStatus returns an app's enabled flag and init status. It panics if the
// app is unknown.
func (s *Server) AppStatus(appID string) AppStatus {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.mustApp(appID)
	st := a.status
	st.Enabled = a.enabled
	return st
}

// UnregisterExApp removes an app with its UI registrations, webhooks and
// task processing providers, as `occ app_api:app:unregister` does (without calling the app). It
// reports whether the app existed.
func (s *Server) UnregisterExApp(appID string) bool {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.apps[appID]; !ok {
		return false
	}
	delete(s.apps, appID)
	s.hooks.ui.removeApp(appID)
	s.deleteWebhooksByAppLocked(appID)
	s.dropTaskProvidersLocked(appID)
	s.notifyLocked()
	return true
}

func (s *Server) mustApp(appID string) *exApp {
	a, ok := s.apps[appID]
	if !ok {
		panic(fmt.Sprintf("ncsim: no ExApp %q", appID))
	}
	return a
}

// exAppRef is a copy of what an outgoing call needs, taken under s.mu.
type exAppRef struct {
	id, version, secret, baseURL string
	enabled                      bool
}

func (s *Server) exAppRef(appID string) (exAppRef, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.apps[appID]
	if !ok {
		return exAppRef{}, false
	}
	return exAppRef{id: a.id, version: a.version, secret: a.secret, baseURL: a.baseURL, enabled: a.enabled}, true
}

// parseRouteList decodes a JSON array body of headers_to_exclude or
// bruteforce_protection the way ExAppRouteHelper does: "" and "[]" are
// empty; anything but a JSON list is rejected.
func parseRouteList(raw, route, field string) ([]json.RawMessage, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal([]byte(raw), &list); err != nil {
		return nil, fmt.Errorf("route '%s': '%s' must be a JSON array, got string '%s'", route, field, raw)
	}
	return list, nil
}
