package app

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hybrid-search/hybridsearch/appinfo"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

func baseEnv() map[string]string {
	return map[string]string{
		"APP_ID": "hybrid_search", "APP_SECRET": "abc+/123", "APP_VERSION": "0.1.0",
		"APP_PORT": "23000", "NEXTCLOUD_URL": "http://nc.local/index.php/",
	}
}

func load(env map[string]string) (Config, error) {
	return LoadConfig(func(k string) string { return env[k] })
}

func TestLoadConfigDefaults(t *testing.T) {
	c, err := load(baseEnv())
	if err != nil {
		t.Fatal(err)
	}
	if c.NextcloudURL != "http://nc.local" {
		t.Errorf("NextcloudURL = %q, want /index.php and / stripped", c.NextcloudURL)
	}
	if c.Addr() != "127.0.0.1:23000" || c.ChunkSize != 1000 || c.ChunkOverlap != 200 || c.EmbedModel != "nomic-embed-text" {
		t.Errorf("defaults wrong: %+v", c)
	}
	if c.ScanInterval != 15*time.Minute || c.MaxFileSize != 100*1000*1000 || c.HaRPSocket != "/tmp/exapp.sock" {
		t.Errorf("defaults wrong: %+v", c)
	}
	if len(c.OllamaHosts) != 1 || c.OllamaHosts[0] != "http://127.0.0.1:11434" {
		t.Errorf("OllamaHosts = %v", c.OllamaHosts)
	}
}

func TestLoadConfigErrors(t *testing.T) {
	tests := []struct {
		name, key, value, want string
	}{
		{"missing secret", "APP_SECRET", "", "APP_SECRET is not set"},
		{"missing id", "APP_ID", "", "APP_ID is not set"},
		{"port not a number", "APP_PORT", "http", "APP_PORT=\"http\""},
		{"port out of range", "APP_PORT", "70000", "expected a TCP port number"},
		{"bad nextcloud url", "NEXTCLOUD_URL", "nc.local", "NEXTCLOUD_URL"},
		{"secret with colon", "APP_SECRET", "a:b", "must not contain ':'"},
		{"bad nats url", "NATS_URL", "http://x:4222", "NATS_URL"},
		{"bad qdrant url", "QDRANT_URL", "localhost", "QDRANT_URL"},
		{"chunk size too small", "CHUNK_SIZE", "10", "CHUNK_SIZE"},
		{"overlap above size", "CHUNK_OVERLAP", "1500", "must be below CHUNK_SIZE"},
		{"bad duration", "SCAN_INTERVAL", "soon", "SCAN_INTERVAL"},
		{"too short scan", "SCAN_INTERVAL", "5s", "SCAN_INTERVAL"},
		{"bad size", "MAX_FILE_SIZE", "lots", "MAX_FILE_SIZE"},
		{"bad log level", "LOG_LEVEL", "loud", "LOG_LEVEL"},
		{"bad compute device", "COMPUTE_DEVICE", "TPU", "COMPUTE_DEVICE"},
		{"bad workers", "WORKERS", "65", "WORKERS"},
		{"no workers on the embedded queue and store", "WORKERS", "0", "WORKERS=0: needs NATS_URL and QDRANT_URL"},
		{"replicas out of range", "NATS_REPLICAS", "7", "NATS_REPLICAS"},
		{"replicas on the embedded server", "NATS_REPLICAS", "3", "needs NATS_URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := baseEnv()
			env[tt.key] = tt.value
			_, err := load(env)
			if err == nil {
				t.Fatalf("LoadConfig with %s=%q succeeded, want an error", tt.key, tt.value)
			}
			if !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error = %q, want one line containing %q", err, tt.want)
			}
		})
	}
}

// serve may leave all indexing to workers when they share its NATS and
// Qdrant.
func TestLoadConfigNoWorkers(t *testing.T) {
	env := baseEnv()
	env["WORKERS"], env["NATS_URL"], env["QDRANT_URL"] = "0", "nats://nats:4222", "http://qdrant:6334"
	c, err := load(env)
	if err != nil || c.Workers != 0 {
		t.Fatalf("WORKERS=0 with NATS_URL and QDRANT_URL: %+v, %v", c.Workers, err)
	}
}

func TestLoadConfigRedactsSecrets(t *testing.T) {
	env := baseEnv()
	env["APP_SECRET"] = "top:secret"
	_, err := load(env)
	if err == nil || strings.Contains(err.Error(), "top:secret") {
		t.Fatalf("error %v leaks the secret", err)
	}
}

func TestLoadConfigOurs(t *testing.T) {
	env := baseEnv()
	env["OLLAMA_HOST"] = "gpu1:11434, http://gpu2:11434/"
	env["MAX_FILE_SIZE"] = "2GiB"
	env["HP_SHARED_KEY"] = "k"
	c, err := load(env)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.OllamaHosts) != 2 || c.OllamaHosts[0] != "http://gpu1:11434" || c.OllamaHosts[1] != "http://gpu2:11434" {
		t.Errorf("OllamaHosts = %v", c.OllamaHosts)
	}
	if c.MaxFileSize != 2<<30 {
		t.Errorf("MaxFileSize = %d", c.MaxFileSize)
	}
}

// TestInfoXMLDeclaresVariables: every variable info.xml declares for the
// admin at install is one the app reads, with the app's default, and the
// admin-tunable ones are declared.
func TestInfoXMLDeclaresVariables(t *testing.T) {
	reg, err := ncsim.ParseInfoXML(appinfo.InfoXML)
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	for _, d := range reg.EnvVars {
		declared[d.Name] = true
		i := slices.IndexFunc(envVars, func(v envVar) bool { return v.name == d.Name })
		switch {
		case i < 0:
			t.Errorf("info.xml declares %s, which the app does not read", d.Name)
		case d.DisplayName == "" || d.Description == "":
			t.Errorf("%s has no display-name or description", d.Name)
		case d.Default != "" && d.Default != envVars[i].def:
			t.Errorf("%s: info.xml default %q, the app's %q", d.Name, d.Default, envVars[i].def)
		}
	}
	for _, name := range []string{"WORKERS", "OCR_WORKERS", "OCR_LANGUAGES", "OCR_PAGE_TIMEOUT", "OCR_MAX_PAGES", "MAX_FILE_SIZE", "SCAN_INTERVAL", "EMBED_KEEP_ALIVE"} {
		if !declared[name] {
			t.Errorf("info.xml does not declare %s", name)
		}
	}
}

// TestLoadConfigKeepAlive: EMBED_KEEP_ALIVE is unset by default (no
// keep_alive is sent: Ollama's own setting applies), and takes what
// Ollama's keep_alive takes: a duration, whole seconds, 0 or a negative
// number ("forever"); "default" means unset.
func TestLoadConfigKeepAlive(t *testing.T) {
	c, err := load(baseEnv())
	if err != nil || c.EmbedKeepAlive != nil {
		t.Fatalf("default EmbedKeepAlive = %v, %v; want nil", c.EmbedKeepAlive, err)
	}
	for in, want := range map[string]time.Duration{"10m": 10 * time.Minute, "300": 300 * time.Second, "0": 0, "-1": -time.Second, "-1m": -time.Minute} {
		env := baseEnv()
		env["EMBED_KEEP_ALIVE"] = in
		c, err := load(env)
		if err != nil || c.EmbedKeepAlive == nil || *c.EmbedKeepAlive != want {
			t.Errorf("EMBED_KEEP_ALIVE=%s: %v, %v; want %v", in, c.EmbedKeepAlive, err, want)
		}
	}
	env := baseEnv()
	env["EMBED_KEEP_ALIVE"] = "default"
	if c, err := load(env); err != nil || c.EmbedKeepAlive != nil {
		t.Errorf("EMBED_KEEP_ALIVE=default: %v, %v; want nil", c.EmbedKeepAlive, err)
	}
	env["EMBED_KEEP_ALIVE"] = "soon"
	if _, err := load(env); err == nil || !strings.Contains(err.Error(), "EMBED_KEEP_ALIVE") {
		t.Errorf("EMBED_KEEP_ALIVE=soon: %v, want an error naming it", err)
	}
}
