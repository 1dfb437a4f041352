package app

import (
	"errors"
	"fmt"
	"math"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// Config is everything the app reads from its environment, read once at
// start-up by LoadConfig and then passed down as plain values.
type Config struct {
	// AppAPI (docs/nextcloud-protocol.md §2).
	AppID             string
	AppSecret         string
	AppVersion        string
	AppDisplayName    string
	AppHost           string
	AppPort           int
	AAVersion         string
	NextcloudURL      string // without a trailing /index.php or /
	PersistentStorage string // data directory
	ComputeDevice     string
	HaRPSharedKey     string // set when deployed through HaRP: listen on HaRPSocket
	HaRPSocket        string

	// Ours.
	NATSURL      string   // "" = run an embedded NATS server
	NATSReplicas int      // replicas of the queue's streams and buckets
	QdrantURL    string   // "" = embedded local store
	QdrantAPIKey string   //
	OllamaHosts  []string // base URLs
	EmbedModel   string
	ChunkSize    int
	ChunkOverlap int
	Workers      int
	ScanInterval time.Duration
	MaxFileSize  int64
	ExcludePaths []string // path globs never indexed
	ExcludeMIME  []string // MIME types never indexed ("image/*" allowed)
	// OCR: workers of the queue's OCR lane (0 turns recognition off),
	// languages recognised besides eng, deu and jpn, the timeout of one
	// page and the pages recognised per file.
	OCRWorkers     int
	OCRLanguages   []string
	OCRPageTimeout time.Duration
	OCRMaxPages    int
	LogLevel       string // debug, info, warn, error
	LogFormat      string // text, json
	// MetricsAddr is a TCP address serving only /metrics, /healthz and
	// /readyz ("" = none besides the app's own port; the worker's only
	// listener, default :9090 there).
	MetricsAddr string
	// SearchFusion and SearchWeights are what a search that names none
	// gets (rrf, linear or auto; semantic, keyword and fuzzy weights).
	SearchFusion  string
	SearchWeights hs.Weights
	// SettingsInterval is how often the admin settings are read from
	// Nextcloud (it cannot tell the app that they changed).
	SettingsInterval time.Duration
	// Asking your files (assistant.go): the Ollama chat model ("" turns it
	// off), its host ("" means the first of OllamaHosts), the context to
	// run it with (0: the model's own), answers at once and the deadline
	// of one answer.
	ChatModel   string
	ChatHost    string
	ChatContext int
	AskWorkers  int
	AskTimeout  time.Duration
	// ClientMetadataHosts are host:port pairs whose OAuth client metadata
	// documents may be fetched although they resolve to private addresses.
	ClientMetadataHosts []string
	// EmbedKeepAlive is sent as Ollama's keep_alive; nil sends none, so
	// Ollama's own setting applies (embedding.OllamaOptions.KeepAlive).
	EmbedKeepAlive *time.Duration

	// ShareMaxAge is how old a user's share list may be before their
	// search looks again (tests); not read from the environment, 0 means
	// indexing.DefaultShareMaxAge.
	ShareMaxAge time.Duration
	// RetryBackoff overrides the queue's retry delays (tests); not read
	// from the environment.
	RetryBackoff []time.Duration
	// AssistantPoll overrides how often the Assistant's task lanes look
	// for tasks before a trigger arrives (tests); not read from the
	// environment, 0 means assistant.DefaultPoll.
	AssistantPoll time.Duration
	// AckWait overrides how long a job held by a lost worker (or whose
	// acknowledgement was lost) waits before it is delivered again (tests);
	// not read from the environment, 0 means 30 s.
	AckWait time.Duration
	// UserListClock is the clock the user list's age is read on (tests);
	// not read from the environment, nil means time.Now.
	UserListClock func() time.Time
}

// Addr is the TCP address the app listens on when not behind HaRP.
func (c Config) Addr() string {
	return net.JoinHostPort(c.AppHost, strconv.Itoa(c.AppPort)) // APP_HOST may be "::"
}

// envVar describes one environment variable: its name, default, whether it
// is required, what is expected (for the error line and --help) and how it
// is stored into Config.
type envVar struct {
	name     string
	def      string
	required bool
	expect   string
	set      func(c *Config, v string) error
}

// envVars is the table of every variable the app reads, in --help order.
var envVars = []envVar{
	{"APP_ID", "", true, "the ExApp id, e.g. hybrid_search", setString(func(c *Config) *string { return &c.AppID })},
	{"APP_SECRET", "", true, "the shared secret AppAPI generated (no ':')", func(c *Config, v string) error {
		if strings.Contains(v, ":") {
			return fmt.Errorf("must not contain ':'")
		}
		c.AppSecret = v
		return nil
	}},
	{"APP_VERSION", "", true, "the app version, e.g. 1.0.0", setString(func(c *Config) *string { return &c.AppVersion })},
	{"APP_DISPLAY_NAME", "Hybrid Search", false, "the app's display name", setString(func(c *Config) *string { return &c.AppDisplayName })},
	{"APP_HOST", "127.0.0.1", false, "the address to listen on", setString(func(c *Config) *string { return &c.AppHost })},
	{"APP_PORT", "", true, "a TCP port number 1-65535", func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("not a port number")
		}
		c.AppPort = n
		return nil
	}},
	{"AA_VERSION", "32.0.0", false, "the AppAPI version", setString(func(c *Config) *string { return &c.AAVersion })},
	{"NEXTCLOUD_URL", "", true, "the Nextcloud base URL, e.g. http://nextcloud.local", func(c *Config, v string) error {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("not an http(s) URL")
		}
		v = strings.TrimSuffix(strings.TrimSuffix(v, "/"), "/index.php")
		c.NextcloudURL = strings.TrimSuffix(v, "/")
		return nil
	}},
	{"APP_PERSISTENT_STORAGE", "./data", false, "a writable directory for the index and queue", setString(func(c *Config) *string { return &c.PersistentStorage })},
	{"COMPUTE_DEVICE", "CPU", false, "CPU, CUDA or ROCM", func(c *Config, v string) error {
		switch strings.ToUpper(v) {
		case "CPU", "CUDA", "ROCM":
			c.ComputeDevice = strings.ToUpper(v)
			return nil
		}
		return fmt.Errorf("not CPU, CUDA or ROCM")
	}},
	{"HP_SHARED_KEY", "", false, "set by HaRP; the app then listens on HP_EXAPP_SOCK", setString(func(c *Config) *string { return &c.HaRPSharedKey })},
	{"HP_EXAPP_SOCK", "/tmp/exapp.sock", false, "the unix socket used behind HaRP", setString(func(c *Config) *string { return &c.HaRPSocket })},
	{"NATS_URL", "", false, "nats://host:4222 of an external NATS with JetStream; empty runs NATS embedded", func(c *Config, v string) error {
		for _, part := range strings.Split(v, ",") {
			u, err := url.Parse(strings.TrimSpace(part))
			if err != nil || u.Host == "" || (u.Scheme != "nats" && u.Scheme != "tls" && u.Scheme != "ws" && u.Scheme != "wss") {
				return fmt.Errorf("not a nats:// URL")
			}
		}
		c.NATSURL = v
		return nil
	}},
	{"NATS_REPLICAS", "1", false, "replicas of the job streams and state buckets, 1-5 (3 on a NATS cluster of 3 or more nodes)", setInt(func(c *Config) *int { return &c.NATSReplicas }, 1, 5)},
	{"QDRANT_URL", "", false, "http(s)://host:6334 (gRPC) of Qdrant; empty uses the embedded store", func(c *Config, v string) error {
		u, err := url.Parse(v)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return fmt.Errorf("not an http(s)://host:port URL")
		}
		c.QdrantURL = v
		return nil
	}},
	{"QDRANT_API_KEY", "", false, "the Qdrant API key, if any", setString(func(c *Config) *string { return &c.QdrantAPIKey })},
	{"OLLAMA_HOST", "http://127.0.0.1:11434", false, "comma-separated Ollama base URLs, used together (in the ExApp container 127.0.0.1 is the container itself: use the host's address or an ollama container's name); \"off\" indexes without embeddings (keyword and fuzzy search only)", func(c *Config, v string) error {
		c.OllamaHosts = nil
		if strings.EqualFold(v, "off") || strings.EqualFold(v, "none") {
			return nil
		}
		for _, part := range strings.Split(v, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			if !strings.Contains(part, "://") {
				part = "http://" + part
			}
			u, err := url.Parse(part)
			if err != nil || u.Host == "" {
				return fmt.Errorf("%q is not a host:port or URL", part)
			}
			c.OllamaHosts = append(c.OllamaHosts, strings.TrimSuffix(part, "/"))
		}
		if len(c.OllamaHosts) == 0 {
			return fmt.Errorf("no host given")
		}
		return nil
	}},
	{"EMBED_MODEL", "nomic-embed-text", false, "the Ollama embedding model", setString(func(c *Config) *string { return &c.EmbedModel })},
	{"EMBED_KEEP_ALIVE", "", false, "how long Ollama keeps the model loaded after the app's last request, as Ollama's keep_alive: e.g. 10m, 300 (seconds), 0 (unload at once), -1 (keep loaded); empty or \"default\" sends none, so Ollama's own OLLAMA_KEEP_ALIVE applies (5m unless set)", func(c *Config, v string) error {
		c.EmbedKeepAlive = nil
		if strings.EqualFold(v, "default") {
			return nil
		}
		d, err := parseKeepAlive(v)
		if err != nil {
			return err
		}
		c.EmbedKeepAlive = &d
		return nil
	}},
	{"CHUNK_SIZE", "1000", false, "chunk size in characters, 200-8000", setInt(func(c *Config) *int { return &c.ChunkSize }, 200, 8000)},
	{"CHUNK_OVERLAP", "200", false, "chunk overlap in characters, 0-2000 and below CHUNK_SIZE", setInt(func(c *Config) *int { return &c.ChunkOverlap }, 0, 2000)},
	{"WORKERS", "2", false, "indexing workers, 0-64 (serve with 0 indexes nothing itself: hybridsearch worker processes do it; needs NATS_URL and QDRANT_URL)", setInt(func(c *Config) *int { return &c.Workers }, 0, 64)},
	{"SCAN_INTERVAL", "15m", false, "time between reconciliation scans, e.g. 15m (0 turns them off)", func(c *Config, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || (d > 0 && d < time.Minute) {
			return fmt.Errorf("not a duration of 0 or at least 1m")
		}
		c.ScanInterval = d
		return nil
	}},
	{"MAX_FILE_SIZE", "100MB", false, "largest file to index, e.g. 100MB", func(c *Config, v string) error {
		n, err := parseBytes(v)
		if err != nil || n <= 0 {
			return fmt.Errorf("not a size such as 100MB")
		}
		c.MaxFileSize = n
		return nil
	}},
	{"EXCLUDE_PATHS", "", false, "comma-separated path globs not to index, e.g. /Photos/**,**/node_modules/**", func(c *Config, v string) error {
		c.ExcludePaths = splitList(v)
		return nil
	}},
	{"EXCLUDE_MIME", "", false, "comma-separated MIME types not to index, e.g. image/*,video/*", func(c *Config, v string) error {
		c.ExcludeMIME = splitList(v)
		return nil
	}},
	{"OCR_WORKERS", "1", false, "files whose text is recognised (OCR) at the same time, 0-16, beside WORKERS; 0 turns OCR off", setInt(func(c *Config) *int { return &c.OCRWorkers }, 0, 16)},
	{"OCR_LANGUAGES", "", false, "comma-separated tesseract languages recognised besides eng, deu and jpn, e.g. fra,spa (Debian: tesseract-ocr-<code>)", func(c *Config, v string) error {
		c.OCRLanguages = splitList(v)
		for _, l := range c.OCRLanguages {
			if !validOCRLang(l) {
				return fmt.Errorf("%q is not a tesseract language code", l)
			}
		}
		return nil
	}},
	{"OCR_PAGE_TIMEOUT", "2m", false, "longest recognition of one page, e.g. 2m", func(c *Config, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Second {
			return fmt.Errorf("not a duration of at least 1s")
		}
		c.OCRPageTimeout = d
		return nil
	}},
	{"OCR_MAX_PAGES", "500", false, "most pages recognised in one file, 1-10000 (later pages are not indexed)", setInt(func(c *Config) *int { return &c.OCRMaxPages }, 1, 10000)},
	{"SEARCH_FUSION", "rrf", false, "rrf, linear or auto: the fusion of searches that name none", func(c *Config, v string) error {
		if f := strings.ToLower(v); slices.Contains(hs.DefaultSearchRules().Fusions, f) {
			c.SearchFusion = f
			return nil
		}
		return fmt.Errorf("not one of %s", strings.Join(hs.DefaultSearchRules().Fusions, ", "))
	}},
	{"SEARCH_WEIGHT_SEMANTIC", "0.5", false, "weight 0-1 of semantic search in searches that name none", setWeight(func(c *Config) *float64 { return &c.SearchWeights.Semantic })},
	{"SEARCH_WEIGHT_KEYWORD", "0.3", false, "weight 0-1 of keyword search in searches that name none", setWeight(func(c *Config) *float64 { return &c.SearchWeights.Keyword })},
	{"SEARCH_WEIGHT_FUZZY", "0.2", false, "weight 0-1 of fuzzy search in searches that name none", setWeight(func(c *Config) *float64 { return &c.SearchWeights.Fuzzy })},
	{"OLLAMA_CHAT_MODEL", "", false, "the Ollama chat model that answers questions from a user's files (\"Ask your files\" in the Assistant and the panel), e.g. qwen3:4b; empty or \"off\" turns asking off", func(c *Config, v string) error {
		c.ChatModel = v
		if strings.EqualFold(v, "off") || strings.EqualFold(v, "none") {
			c.ChatModel = ""
		}
		return nil
	}},
	{"OLLAMA_CHAT_HOST", "", false, "the Ollama base URL of the chat model; empty means the first of OLLAMA_HOST", func(c *Config, v string) error {
		if !strings.Contains(v, "://") {
			v = "http://" + v
		}
		u, err := url.Parse(v)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return fmt.Errorf("not a host:port or http(s) URL")
		}
		c.ChatHost = strings.TrimSuffix(v, "/")
		return nil
	}},
	{"OLLAMA_CHAT_CONTEXT", "0", false, "tokens of context to run the chat model with, 0 or 512-262144 (0: the model's own, by default 4096); passages fill what the answer leaves", func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || (n != 0 && (n < 512 || n > 262144)) {
			return fmt.Errorf("not 0 or a whole number from 512 to 262144")
		}
		c.ChatContext = n
		return nil
	}},
	{"ASK_WORKERS", "2", false, "questions answered at the same time, 1-16; more wait (each waits up to 30s for a turn)", setInt(func(c *Config) *int { return &c.AskWorkers }, 1, 16)},
	{"ASK_TIMEOUT", "5m", false, "longest time for one answer, retrieval included, 10s-30m", func(c *Config, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < 10*time.Second || d > 30*time.Minute {
			return fmt.Errorf("not a duration from 10s to 30m")
		}
		c.AskTimeout = d
		return nil
	}},
	{"SETTINGS_INTERVAL", "10s", false, "how often to read the admin settings from Nextcloud, 1s-10m", func(c *Config, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Second || d > 10*time.Minute {
			return fmt.Errorf("not a duration from 1s to 10m")
		}
		c.SettingsInterval = d
		return nil
	}},
	{"LOG_LEVEL", "info", false, "debug, info, warn or error", func(c *Config, v string) error {
		switch strings.ToLower(v) {
		case "debug", "info", "warn", "error":
			c.LogLevel = strings.ToLower(v)
			return nil
		}
		return fmt.Errorf("not debug, info, warn or error")
	}},
	{"LOG_FORMAT", "text", false, "text or json", func(c *Config, v string) error {
		switch strings.ToLower(v) {
		case "text", "json":
			c.LogFormat = strings.ToLower(v)
			return nil
		}
		return fmt.Errorf("not text or json")
	}},
	{"METRICS_ADDR", "", false, "host:port serving only /metrics, /healthz and /readyz, e.g. :9090 (the app's own port serves them too, but behind HaRP it is a unix socket); hybridsearch worker defaults to :9090", func(c *Config, v string) error {
		if _, _, err := net.SplitHostPort(v); err != nil {
			return fmt.Errorf("not host:port")
		}
		c.MetricsAddr = v
		return nil
	}},
	{"OAUTH_CLIENT_METADATA_HOSTS", "", false, "comma-separated host:port of intranet hosts whose OAuth client metadata documents may be fetched (others must be public)", func(c *Config, v string) error {
		c.ClientMetadataHosts = splitList(v)
		for _, h := range c.ClientMetadataHosts {
			if _, port, err := net.SplitHostPort(h); err != nil || port == "" {
				return fmt.Errorf("%q is not host:port", h)
			}
		}
		return nil
	}},
}

// LoadConfig reads and validates the configuration through getenv. The
// error names the first bad variable and what is expected, in one line.
func LoadConfig(getenv func(string) string) (Config, error) {
	var c Config
	for _, v := range envVars {
		val := strings.TrimSpace(getenv(v.name))
		if val == "" {
			if v.required {
				return Config{}, fmt.Errorf("config: %s is not set: expected %s", v.name, v.expect)
			}
			if v.def == "" {
				continue
			}
			val = v.def
		}
		if err := v.set(&c, val); err != nil {
			return Config{}, fmt.Errorf("config: %s=%q: %v: expected %s", v.name, redact(v.name, val), err, v.expect)
		}
	}
	if c.ChunkOverlap >= c.ChunkSize {
		return Config{}, fmt.Errorf("config: CHUNK_OVERLAP=%d: must be below CHUNK_SIZE=%d", c.ChunkOverlap, c.ChunkSize)
	}
	if c.NATSReplicas > 1 && c.NATSURL == "" {
		return Config{}, fmt.Errorf("config: NATS_REPLICAS=%d: needs NATS_URL of a NATS cluster (the embedded server is a single node)", c.NATSReplicas)
	}
	if c.Workers == 0 && (c.NATSURL == "" || c.QdrantURL == "") {
		return Config{}, errors.New("config: WORKERS=0: needs NATS_URL and QDRANT_URL, shared with the hybridsearch worker processes that then do all the indexing")
	}
	if err := checkWeights(c.SearchWeights); err != nil {
		return Config{}, fmt.Errorf("config: SEARCH_WEIGHT_SEMANTIC, SEARCH_WEIGHT_KEYWORD, SEARCH_WEIGHT_FUZZY: %v", err)
	}
	return c, nil
}

// checkWeights applies the search rules' weight rule
// (hs.SearchRules.CheckWeights): each ≥ 0, together at most 1, not all 0.
func checkWeights(w hs.Weights) error {
	if err := hs.DefaultSearchRules().CheckWeights(w); err != nil {
		return errors.New(hs.ErrorMessage(err))
	}
	return nil
}

func setWeight(field func(*Config) *float64) func(*Config, string) error {
	return func(c *Config, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || f < 0 || f > 1 {
			return fmt.Errorf("not a number from 0 to 1")
		}
		*field(c) = f
		return nil
	}
}

// splitList splits a comma-separated list, dropping empty items.
// validOCRLang reports whether l looks like a tesseract language code
// ("fra", "chi_sim", "script/Latin"): nothing a command line could misread.
func validOCRLang(l string) bool {
	if l == "" || len(l) > 40 || l[0] == '-' {
		return false
	}
	for _, r := range l {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '/') {
			return false
		}
	}
	return true
}

func splitList(v string) []string {
	var out []string
	for _, part := range strings.Split(v, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// redact hides secrets in error messages.
func redact(name, val string) string {
	if strings.Contains(name, "SECRET") || strings.Contains(name, "KEY") {
		return "…"
	}
	return val
}

func setString(field func(*Config) *string) func(*Config, string) error {
	return func(c *Config, v string) error {
		*field(c) = v
		return nil
	}
}

func setInt(field func(*Config) *int, lo, hi int) func(*Config, string) error {
	return func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			return fmt.Errorf("not a whole number from %d to %d", lo, hi)
		}
		*field(c) = n
		return nil
	}
}

// parseBytes parses sizes such as 512, 64KB, 100MB, 2GiB.
func parseBytes(s string) (int64, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"KB", 1000}, {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, err
	}
	return n * mult, nil
}

// ConfigHelp renders the variable table for --help.
func ConfigHelp() string {
	var b strings.Builder
	for _, v := range envVars {
		req := ""
		if v.required {
			req = " (required)"
		}
		def := ""
		if v.def != "" {
			def = " [default " + v.def + "]"
		}
		fmt.Fprintf(&b, "  %-24s %s%s%s\n", v.name, v.expect, req, def)
	}
	return b.String()
}

// parseKeepAlive reads a keep-alive as Ollama's keep_alive does
// (api.Duration): a Go duration, or a number of seconds.
func parseKeepAlive(v string) (time.Duration, error) {
	if d, err := time.ParseDuration(v); err == nil {
		return d, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n > math.MaxInt64/int64(time.Second) || n < math.MinInt64/int64(time.Second) {
		return 0, fmt.Errorf("not a duration such as 10m or a number of seconds")
	}
	return time.Duration(n) * time.Second, nil
}

// formatKeepAlive writes a keep-alive as EMBED_KEEP_ALIVE takes it; nil
// is "".
func formatKeepAlive(d *time.Duration) string {
	switch {
	case d == nil:
		return ""
	case *d < 0:
		return "-1"
	case *d == 0:
		return "0"
	}
	return d.String()
}

// sameKeepAlive reports whether two keep-alives send the same keep_alive.
func sameKeepAlive(a, b *time.Duration) bool {
	return formatKeepAlive(a) == formatKeepAlive(b)
}
