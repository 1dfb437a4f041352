package app

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
)

// settingsEnv runs the app with a short settings interval.
func settingsEnv(t *testing.T, o envOptions) *testEnv {
	t.Helper()
	o.install = true
	adjust := o.adjust
	o.adjust = func(c *Config) {
		c.SettingsInterval = 100 * time.Millisecond
		if adjust != nil {
			adjust(c)
		}
	}
	return newTestEnv(t, o)
}

// setAdmin saves a value in the app's admin form the way Nextcloud's
// settings page does, as the admin alice.
func (e *testEnv) setAdmin(t *testing.T, field string, value any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"app": "hybrid_search", "formId": adminFormID, "fieldId": field, "value": value})
	req, _ := http.NewRequest(http.MethodPost, e.Sim.BaseURL+"/ocs/v2.php/settings/api/declarative/value", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("OCS-APIRequest", "true")
	req.SetBasicAuth(e.Alice.UID, e.Alice.AppPassword)
	if resp, out := doReq(t, req); resp.StatusCode != 200 {
		t.Fatalf("save %s = %d %s", field, resp.StatusCode, out)
	}
}

// panelSettings is GET /api/settings through the proxy as alice.
func (e *testEnv) panelSettings(t *testing.T) panelSettings {
	t.Helper()
	resp, body := e.proxyGet(t, &e.Alice, "api/settings")
	if resp.StatusCode != 200 {
		t.Fatalf("GET api/settings = %d %s", resp.StatusCode, body)
	}
	var ps panelSettings
	if err := json.Unmarshal([]byte(body), &ps); err != nil {
		t.Fatal(err)
	}
	return ps
}

func TestAdminFormRegisteredAndValid(t *testing.T) {
	t.Parallel()
	env := settingsEnv(t, envOptions{})
	forms := env.Sim.SettingsForms("hybrid_search")
	if len(forms) != 2 || forms[0].FormID != adminFormID || forms[1].FormID != personalFormID {
		t.Fatalf("forms %s %s, want the admin and the personal form", forms[0].FormID, forms[len(forms)-1].FormID)
	}
	// The simulator validates forms as DeclarativeManager does: an invalid
	// one would answer 500 here.
	req, _ := http.NewRequest(http.MethodGet, env.Sim.BaseURL+"/index.php/settings/admin/declarative_settings", nil)
	req.AddCookie(env.Sim.NewSession("alice"))
	resp, body := doReq(t, req)
	if resp.StatusCode != 200 || !strings.Contains(body, `id="ollama_host_field"`) || !strings.Contains(body, `<option value="rrf" selected>`) {
		t.Errorf("admin settings page = %d, lacks the app's fields:\n%s", resp.StatusCode, body)
	}
	// Fields whose default is empty: nothing excluded, no OCR language
	// list, Ollama's own keep-alive, no chat model, the chat host following
	// OLLAMA_HOST.
	emptyByDefault := map[string]bool{"EXCLUDE_PATHS": true, "EXCLUDE_MIME": true, "OCR_LANGUAGES": true, "EMBED_KEEP_ALIVE": true, "OLLAMA_CHAT_MODEL": true, "OLLAMA_CHAT_HOST": true}
	for _, a := range adminFields {
		if v, ok := env.Sim.DeclarativeValue("hybrid_search", fieldID(a.env), ""); !ok || v == "" && !emptyByDefault[a.env] {
			t.Errorf("field %s shows %q (%v): want the environment's value", fieldID(a.env), v, ok)
		}
	}
	if acts := env.Sim.FileActions("hybrid_search"); len(acts) != 1 || acts[0].ActionHandler != "api/files/similar" {
		t.Errorf("file actions %+v", acts)
	}
}

func TestAdminSearchDefaultsApplyLive(t *testing.T) {
	t.Parallel()
	env := settingsEnv(t, envOptions{})
	if ps := env.panelSettings(t); ps.Fusion != hs.FusionRRF || ps.Weights != hs.DefaultWeights || ps.Semantic {
		t.Fatalf("settings before %+v", ps)
	}
	env.setAdmin(t, "search_fusion", "linear")
	env.setAdmin(t, "search_weight_semantic", "0.1")
	env.setAdmin(t, "search_weight_keyword", "0.6")
	env.setAdmin(t, "search_weight_fuzzy", "0.3")
	want := hs.Weights{Semantic: 0.1, Keyword: 0.6, Fuzzy: 0.3}
	await(t, "the new defaults", 10*time.Second, func() bool {
		ps := env.panelSettings(t)
		return ps.Fusion == hs.FusionLinear && ps.Weights == want
	})
	// A panel opened now starts with them: the initial state Nextcloud
	// serves on the embedded page was registered again.
	await(t, "the new defaults in the panel's initial state", 10*time.Second, func() bool {
		states := env.Sim.InitialStates("hybrid_search")
		if len(states) != 1 {
			return false
		}
		var info struct {
			SearchRules hs.SearchRules `json:"search_rules"`
		}
		return json.Unmarshal(states[0].Value, &info) == nil && info.SearchRules.Defaults.Fusion == hs.FusionLinear && info.SearchRules.Defaults.Weights == want
	})
	env.Sim.PutFile("alice", "/d.md", []byte("# Defaults\n\nA heron by the lake."))
	await(t, "a search with the new defaults", 20*time.Second, func() bool {
		resp, body := env.proxyGet(t, &env.Alice, "api/search?q=heron")
		var res hs.SearchResult
		_ = json.Unmarshal([]byte(body), &res)
		return resp.StatusCode == 200 && res.Fusion == hs.FusionLinear && res.Weights == want && len(res.Results) == 1
	})
	// Weights that break the rules are refused, named in the status, and
	// the environment's weights apply.
	env.setAdmin(t, "search_weight_keyword", "0.9")
	await(t, "the refused weights", 10*time.Second, func() bool {
		ps := env.panelSettings(t)
		return ps.Weights == hs.DefaultWeights && strings.Contains(ps.Problems, "search_weight_keyword") && strings.Contains(ps.Problems, "sum to")
	})
	_, body := env.proxyGet(t, &env.Alice, "api/status")
	if !strings.Contains(body, `"settings":{"ok":false`) {
		t.Errorf("status does not show the settings problem: %s", body)
	}
	// bob sees the defaults but not the problems.
	resp, body := env.proxyGet(t, &env.Bob, "api/settings")
	if resp.StatusCode != 200 || strings.Contains(body, "problems") {
		t.Errorf("bob's settings = %d %s", resp.StatusCode, body)
	}
}

func TestAdminExclusionsApplyLive(t *testing.T) {
	t.Parallel()
	env := settingsEnv(t, envOptions{})
	keep := env.Sim.PutFile("alice", "/Docs/keep.md", []byte("# Keep\n\nAn albatross."))
	secret := env.Sim.PutFile("alice", "/Secret/plan.md", []byte("# Plan\n\nA cormorant."))
	big := env.Sim.PutFile("alice", "/Docs/big.md", []byte("# Big\n\n"+strings.Repeat("A pelican. ", 400)))
	for _, f := range []struct {
		id   int64
		etag string
	}{{keep.ID, keep.ETag}, {secret.ID, secret.ETag}, {big.ID, big.ETag}} {
		env.awaitFile(t, "indexed", f.id, isIndexed(f.etag))
	}
	env.setAdmin(t, "exclude_paths", "/Secret/**")
	env.setAdmin(t, "max_file_size", "2KB")
	skipped := func(reason string) func(indexed) bool {
		return func(ix indexed) bool {
			return ix.state.Status == hs.StatusSkipped && strings.Contains(ix.state.Error, reason) && len(ix.points) == 0
		}
	}
	env.awaitFile(t, "the excluded folder leaves the index", secret.ID, skipped(`excluded by path rule "/Secret/**"`))
	env.awaitFile(t, "the large file leaves the index", big.ID, skipped("larger than the 2000-byte limit"))
	if ix := env.lookup(t, keep.ID); !isIndexed(keep.ETag)(ix) {
		t.Errorf("the kept file: %+v", ix.state)
	}
	env.setAdmin(t, "exclude_paths", "")
	env.setAdmin(t, "max_file_size", "")
	env.awaitFile(t, "the folder indexed again", secret.ID, isIndexed(secret.ETag))
	env.awaitFile(t, "the large file indexed again", big.ID, isIndexed(big.ETag))
	env.setAdmin(t, "exclude_mime", "text/markdown")
	env.awaitFile(t, "excluded by type", keep.ID, skipped(`excluded by type rule "text/markdown"`))
	env.setAdmin(t, "scan_interval", "45m")
	await(t, "the scan interval", 10*time.Second, func() bool { return env.Main.settings.effective().ScanInterval == 45*time.Minute })
	env.setAdmin(t, "scan_interval", "soon")
	await(t, "the refused interval", 10*time.Second, func() bool { return strings.Contains(env.panelSettings(t).Problems, "scan_interval") })
	if d := env.Main.settings.effective().ScanInterval; d != 0 {
		t.Errorf("scan interval after a bad value = %s, want the environment's 0", d)
	}
}

// TestAdminModelChange: turning semantic search on in the admin settings
// swaps in a new engine while the app runs: every file is indexed again
// with vectors, into a new index, and searches go on throughout; changing
// only the hosts keeps the index.
func TestAdminModelChange(t *testing.T) {
	t.Parallel()
	env := settingsEnv(t, envOptions{})
	f := env.Sim.PutFile("alice", "/m.md", []byte("# Model\n\nIndexed before Ollama was configured: a gecko."))
	env.awaitFile(t, "indexed without vectors", f.ID, isIndexed(f.ETag))
	first := env.Main.Engine()
	ollama := embeddingtest.NewServer(t)
	stop := make(chan struct{})
	searched := make(chan int, 1)
	go func() { // searches while the engine changes
		n := 0
		defer func() { searched <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			req, _ := http.NewRequest(http.MethodGet, env.Sim.BaseURL+"/index.php/apps/app_api/proxy/hybrid_search/api/search?q=gecko", nil)
			req.SetBasicAuth(env.Alice.UID, env.Alice.AppPassword)
			resp, err := http.DefaultClient.Do(req)
			if err != nil || resp.StatusCode != 200 {
				t.Errorf("a search during the change failed: %v %v", err, resp)
				return
			}
			var res hs.SearchResult
			err = json.NewDecoder(resp.Body).Decode(&res)
			resp.Body.Close()
			if err != nil || len(res.Results) != 1 {
				t.Errorf("a search during the change found %d results (%v): the index in service must stay complete", len(res.Results), err)
				return
			}
			n++
		}
	}()
	env.setAdmin(t, "embed_model", "nomic-embed-text")
	env.setAdmin(t, "ollama_host", ollama.URL)
	await(t, "re-indexed with vectors", 30*time.Second, func() bool {
		pts, err := env.Main.Engine().Store.FilePoints(context.Background(), hs.FileID(f.ID), true)
		return err == nil && len(pts) > 0 && len(pts[0].Dense) == 768
	})
	await(t, "the new index serving", 20*time.Second, func() bool { return env.Main.Serving() == env.Main.Engine() })
	close(stop)
	if n := <-searched; n == 0 {
		t.Error("no search ran during the change")
	}
	second := env.Main.Engine()
	if second == first || !strings.HasPrefix(second.IndexID, "local/nomic-embed-text/"+analysis.Version) || second.Embedder == nil {
		t.Fatalf("engine after the change: %+v", second)
	}
	if ix := env.lookup(t, f.ID); ix.state.Index != second.IndexID {
		t.Errorf("file state names index %q", ix.state.Index)
	}
	if ps := env.panelSettings(t); !ps.Semantic || ps.Model != "nomic-embed-text" {
		t.Errorf("settings after the change %+v", ps)
	}
	_, body := env.proxyGet(t, &env.Alice, "api/search?q=gecko&algorithm=semantic")
	if !strings.Contains(body, `"file_id":`+strings.TrimSpace(jsonInt(f.ID))) {
		t.Errorf("semantic search after the change: %s", body)
	}
	// Only the hosts change: the index and its store stay.
	other := embeddingtest.NewServer(t)
	env.setAdmin(t, "ollama_host", other.URL+","+ollama.URL)
	await(t, "the new hosts", 10*time.Second, func() bool { return len(env.Main.Engine().Config.OllamaHosts) == 2 })
	if third := env.Main.Engine(); third.Store != second.Store || third.IndexID != second.IndexID {
		t.Errorf("a host change opened another index: %s", third.IndexID)
	}
	if _, err := second.Store.Stats(context.Background()); err != nil {
		t.Errorf("the shared store was closed: %v", err)
	}
	// A model that cannot be reached is refused; the engine in use stays.
	env.setAdmin(t, "ollama_host", "http://127.0.0.1:9")
	env.setAdmin(t, "embed_model", "bge-m3")
	await(t, "the failure shown", 30*time.Second, func() bool {
		return strings.Contains(env.panelSettings(t).Problems, "the embedding settings could not be applied")
	})
	if e := env.Main.Engine(); e.Store != second.Store || env.Main.Serving() != e {
		t.Errorf("an unreachable model replaced the engine: %s", e.IndexID)
	}
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }
