package app

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing"
	"github.com/hybrid-search/hybridsearch/nextcloud"
)

// Admin settings. The app registers one declarative settings form in
// AppAPI's "ExApps Settings" admin section. Each field overrides one
// environment variable and takes the same values; an empty field means
// the variable's value (shown as the field's default). AppAPI stores the
// values in the app config, which the app reads every SettingsInterval:
// Nextcloud tells an ExApp nothing when they change
// (docs/nextcloud-compatibility.md). A personal form (issue 15) is added
// the same way: another SettingsForm with section_type "personal", whose
// values the app reads per user with GetUserPreferences.

// adminFormID is the id of the admin settings form.
const adminFormID = "hybrid_search_admin"

// adminField is a field of the admin form: the environment variable it
// overrides (its lower-case name is the field id), and how it shows.
type adminField struct {
	env, typ, title, desc string
	options               []string // for selects
}

// adminFields are the admin form's fields, in order.
var adminFields = []adminField{
	{"OLLAMA_HOST", "text", "Ollama hosts", "Comma-separated Ollama base URLs, used together, e.g. http://ollama:11434. \"off\" indexes without embeddings (keyword and fuzzy search only).", nil},
	{"EMBED_MODEL", "text", "Embedding model", "The Ollama embedding model, e.g. nomic-embed-text or bge-m3. A new model starts a new index: every file is indexed again, while searches go on.", nil},
	{"EMBED_KEEP_ALIVE", "text", "Ollama keep-alive", "How long Ollama keeps the embedding model loaded after the app's last request, e.g. 10m; 0 unloads it at once, -1 keeps it loaded. Empty: Ollama's own setting (OLLAMA_KEEP_ALIVE, 5 minutes unless set). A longer time spares reloads between searches, but while the app keeps the model loaded, another client of the same Ollama that needs a different model or options (Nextcloud's own AI apps) waits until the app has been idle that long.", nil},
	{"SEARCH_FUSION", "select", "Default fusion", "How searches that name none combine semantic, keyword and fuzzy results: rrf (reciprocal rank fusion), linear (normalised scores) or auto (weights chosen from the query's shape).", []string{hs.FusionRRF, hs.FusionLinear, hs.FusionAuto}},
	{"SEARCH_WEIGHT_SEMANTIC", "number", "Default semantic weight", "0 to 1. The three weights together are at most 1.", nil},
	{"SEARCH_WEIGHT_KEYWORD", "number", "Default keyword weight", "0 to 1.", nil},
	{"SEARCH_WEIGHT_FUZZY", "number", "Default fuzzy weight", "0 to 1.", nil},
	{"EXCLUDE_PATHS", "text", "Excluded paths", "Comma-separated path globs never indexed, in each user's files: /Photos/**, **/node_modules/**, **/*.iso. Files they match leave the index; files they no longer match are indexed.", nil},
	{"EXCLUDE_MIME", "text", "Excluded types", "Comma-separated MIME types never indexed, e.g. application/pdf, image/*.", nil},
	{"OCR_LANGUAGES", "text", "OCR languages", "Comma-separated tesseract languages recognised in scans and photos besides English, German and Japanese (eng, deu, jpn), e.g. fra, spa. Each needs its language data installed (Debian: tesseract-ocr-fra); the status names any that are missing.", nil},
	{"MAX_FILE_SIZE", "text", "Largest file", "Files larger than this are not indexed, e.g. 100MB.", nil},
	{"SCAN_INTERVAL", "text", "Scan interval", "Time between reconciliation scans, which catch what webhooks cannot tell (shares, missed events), e.g. 15m; 0 turns them off.", nil},
	{"OLLAMA_CHAT_MODEL", "text", "Chat model", "The Ollama chat model that answers questions from each user's own files, citing them (\"Ask your files\" in the Assistant and the search page), e.g. qwen3:4b; \"off\" turns asking off. Run \"ollama pull\" for it first.", nil},
	{"OLLAMA_CHAT_HOST", "text", "Chat model host", "The Ollama base URL of the chat model, e.g. http://gpu1:11434. Empty means the first Ollama host.", nil},
}

// fieldID is the form field id of an environment variable.
func fieldID(env string) string { return strings.ToLower(env) }

// adminForm is the admin settings form, with env's values as the defaults.
func adminForm(env Config) nextcloud.SettingsForm {
	f := nextcloud.SettingsForm{
		ID: adminFormID, Priority: 10, SectionType: "admin", SectionID: "declarative_settings", Title: env.AppDisplayName,
		Description: "Settings of " + env.AppDisplayName + ". They apply within seconds, without a restart. An empty field takes the value of the app's environment variable, shown as its placeholder.",
	}
	for _, a := range adminFields {
		field := nextcloud.SettingsField{ID: fieldID(a.env), Title: a.title, Description: a.desc, Type: a.typ, Default: envValue(env, a.env)}
		if a.typ == "select" {
			field.Options = a.options
		} else {
			field.Placeholder = envValue(env, a.env)
		}
		if a.env == "EMBED_KEEP_ALIVE" && field.Placeholder == "" {
			field.Placeholder = "default (Ollama's own)"
		}
		if a.typ == "number" {
			f, _ := strconv.ParseFloat(envValue(env, a.env), 64)
			field.Default = f
		}
		f.Fields = append(f.Fields, field)
	}
	return f
}

// adminKeys are the app config keys of the admin form's fields.
func adminKeys() []string {
	keys := make([]string, len(adminFields))
	for i, a := range adminFields {
		keys[i] = fieldID(a.env)
	}
	return keys
}

// envValue renders a variable's value in c the way the variable is written.
func envValue(c Config, env string) string {
	switch env {
	case "OLLAMA_HOST":
		if len(c.OllamaHosts) == 0 {
			return "off"
		}
		return strings.Join(c.OllamaHosts, ",")
	case "EMBED_MODEL":
		return c.EmbedModel
	case "EMBED_KEEP_ALIVE":
		return formatKeepAlive(c.EmbedKeepAlive)
	case "SEARCH_FUSION":
		return c.SearchFusion
	case "SEARCH_WEIGHT_SEMANTIC":
		return strconv.FormatFloat(c.SearchWeights.Semantic, 'f', -1, 64)
	case "SEARCH_WEIGHT_KEYWORD":
		return strconv.FormatFloat(c.SearchWeights.Keyword, 'f', -1, 64)
	case "SEARCH_WEIGHT_FUZZY":
		return strconv.FormatFloat(c.SearchWeights.Fuzzy, 'f', -1, 64)
	case "EXCLUDE_PATHS":
		return strings.Join(c.ExcludePaths, ",")
	case "EXCLUDE_MIME":
		return strings.Join(c.ExcludeMIME, ",")
	case "OCR_LANGUAGES":
		return strings.Join(c.OCRLanguages, ",")
	case "MAX_FILE_SIZE":
		return formatBytes(c.MaxFileSize)
	case "SCAN_INTERVAL":
		if c.ScanInterval == 0 {
			return "0"
		}
		return c.ScanInterval.String()
	case "OLLAMA_CHAT_MODEL":
		return c.ChatModel
	case "OLLAMA_CHAT_HOST":
		return c.ChatHost
	}
	return ""
}

// formatBytes writes n as parseBytes reads it: 100MB, 64KiB, 1234.
func formatBytes(n int64) string {
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"GB", 1000 * 1000 * 1000}, {"MB", 1000 * 1000}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KB", 1000}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// applyAdmin returns env with the admin's values on top, and for each field
// it could not use, why (the variable's value stands in for it). A value
// is read like its environment variable; empty means "as the environment".
func applyAdmin(env Config, values map[string]string) (Config, map[string]string) {
	out := env
	problems := map[string]string{}
	byName := map[string]envVar{}
	for _, v := range envVars {
		byName[v.name] = v
	}
	for _, a := range adminFields {
		raw := strings.TrimSpace(values[fieldID(a.env)])
		if raw == "" {
			continue
		}
		// A number field saves numbers as typed; "0.50" is fine, "1e-1" too.
		next := out
		if err := byName[a.env].set(&next, raw); err != nil {
			problems[fieldID(a.env)] = fmt.Sprintf("%q: %v: expected %s", raw, err, byName[a.env].expect)
			continue
		}
		out = next
	}
	if out.ChunkOverlap >= out.ChunkSize {
		out.ChunkSize, out.ChunkOverlap = env.ChunkSize, env.ChunkOverlap
	}
	if err := checkWeights(out.SearchWeights); err != nil {
		out.SearchWeights = env.SearchWeights
		for _, k := range []string{"SEARCH_WEIGHT_SEMANTIC", "SEARCH_WEIGHT_KEYWORD", "SEARCH_WEIGHT_FUZZY"} {
			if strings.TrimSpace(values[fieldID(k)]) != "" {
				problems[fieldID(k)] = err.Error() + "; the default weights stay"
			}
		}
	}
	if err := (indexing.Rules{PathGlobs: out.ExcludePaths}).Validate(); err != nil {
		out.ExcludePaths = env.ExcludePaths
		problems[fieldID("EXCLUDE_PATHS")] = err.Error()
	}
	return out, problems
}

// rulesOf are the exclusion rules of a config.
func rulesOf(c Config) indexing.Rules {
	return indexing.Rules{PathGlobs: c.ExcludePaths, MIMEs: c.ExcludeMIME, MaxSize: c.MaxFileSize}
}

// sameRules reports whether two configs exclude the same files.
func sameRules(a, b Config) bool {
	return slices.Equal(a.ExcludePaths, b.ExcludePaths) && slices.Equal(a.ExcludeMIME, b.ExcludeMIME) && a.MaxFileSize == b.MaxFileSize
}

// sameEngine reports whether two configs embed with the same model on the
// same Ollama hosts, with the same keep-alive.
func sameEngine(a, b Config) bool {
	return slices.Equal(a.OllamaHosts, b.OllamaHosts) && a.EmbedModel == b.EmbedModel && sameKeepAlive(a.EmbedKeepAlive, b.EmbedKeepAlive)
}

// withEngine returns c embedding as e does: e's model, hosts and
// keep-alive.
func withEngine(c, e Config) Config {
	c.OllamaHosts, c.EmbedModel, c.EmbedKeepAlive = e.OllamaHosts, e.EmbedModel, e.EmbedKeepAlive
	return c
}

// problemText joins the problems for the status, sorted by field.
func problemText(problems map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(problems)) {
		parts = append(parts, k+": "+problems[k])
	}
	return strings.Join(parts, "; ")
}

// settingsState is what adminSettings knows of the admin settings.
type settingsState struct {
	values    map[string]string // last values read from Nextcloud
	effective Config            // environment plus admin values
	problems  map[string]string // by field id: values that could not be used
	readErr   error             // the last read failed
	readAt    time.Time
	swapErr   error     // the embedding settings could not be applied
	failures  int       // consecutive failures to apply them
	retryAt   time.Time // when to try them again
}
