package main

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/hybrid-search/hybridsearch/internal/e2etest"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

// TestDemoEnvironmentIsTheAdmin: the demo once let the simulator's
// <default>s from info.xml win over the process environment, so
// "WORKERS=5 hybridsearch demo" ran with 2 workers. AppAPI passes what an
// admin entered at install; in the demo the process environment is the
// admin.
func TestDemoEnvironmentIsTheAdmin(t *testing.T) {
	t.Parallel()
	sim := &ncsim.Server{HeartbeatInterval: 20 * time.Millisecond}
	if _, err := sim.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	env := map[string]string{"WORKERS": "5", "EMBED_MODEL": "bge-m3", "CHUNK_SIZE": "700", "CHUNK_OVERLAP": "70",
		"OLLAMA_HOST": "off", "SCAN_INTERVAL": "0", "MAX_FILE_SIZE": "5MB", "LOG_LEVEL": "warn"}
	logger := slog.New(slog.NewTextHandler(e2etest.TestWriter{T: t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	m, err := startDemoApp(context.Background(), sim, t.TempDir(), 0, func(k string) string { return env[k] }, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	c := m.Config
	if c.Workers != 5 || c.EmbedModel != "bge-m3" || c.ChunkSize != 700 || c.ChunkOverlap != 70 || c.ScanInterval != 0 ||
		c.MaxFileSize != 5*1000*1000 || c.LogLevel != "warn" {
		t.Errorf("config = workers %d, model %q, chunk %d/%d, scan %s, max %d, log %s; want the process environment's values",
			c.Workers, c.EmbedModel, c.ChunkSize, c.ChunkOverlap, c.ScanInterval, c.MaxFileSize, c.LogLevel)
	}
	appEnv := sim.ExAppEnv("hybrid_search")
	if appEnv.Get("WORKERS") != "5" || appEnv.Get("EMBED_MODEL") != "bge-m3" {
		t.Errorf("environment AppAPI handed the app: WORKERS=%q EMBED_MODEL=%q", appEnv.Get("WORKERS"), appEnv.Get("EMBED_MODEL"))
	}
	// Unset variables keep info.xml's defaults.
	reg, err := demoRegistration(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if len(reg.EnvOverrides) != 0 {
		t.Errorf("overrides without an environment: %v", reg.EnvOverrides)
	}
}
