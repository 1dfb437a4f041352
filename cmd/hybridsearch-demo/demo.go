package main

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hybrid-search/hybridsearch/app"
	"github.com/hybrid-search/hybridsearch/appinfo"
	"github.com/hybrid-search/hybridsearch/exapp"
	"github.com/hybrid-search/hybridsearch/l10n"
	"github.com/hybrid-search/hybridsearch/nextcloud/appapi"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

// sample is the demo's sample folder, loaded into alice's files.
//
//go:embed all:sample
var sample embed.FS

const demoUsage = `Usage: hybridsearch-demo [flags]   (from a checkout: go run ./cmd/hybridsearch-demo [flags])

Starts a simulated Nextcloud on --addr with users alice and bob, loads a
sample folder (English, German and Japanese notes and files) into alice's
files and one private note into bob's, registers and installs the app
exactly as AppAPI does (heartbeat, /init with progress, /enabled), and
prints one line

  READY {"nextcloud_url": ..., "panel_url": ..., "mcp_url": ..., "users": [...]}

when the app is ready. Open panel_url in a browser and sign in as alice
with her app password (or the password "alice"); assistant_url opens the
simulated Assistant, with "Search my files" and, when OLLAMA_CHAT_MODEL
names a chat model, "Ask your files". Stop with Ctrl-C.

The process environment plays the admin: the variables appinfo/info.xml
declares (OLLAMA_HOST, EMBED_MODEL, WORKERS, CHUNK_SIZE, ...) take their
values from it, as AppAPI passes an admin's values at install; the others
of "hybridsearch serve" are read as usual. AppAPI's own variables (APP_ID,
APP_SECRET, APP_PORT, NEXTCLOUD_URL, ...) are set by the simulator.

Flags:
`

// bobSample is bob's private note in the demo.
const bobSample = "# Salary review (confidential)\n\nBob's notes for the Kubernetes platform team salary review: quokkasalary bands, not for anyone else.\n"

// demoUser is one user in the READY line.
type demoUser struct {
	UID         string `json:"uid"`
	AppPassword string `json:"app_password"`
	MCPToken    string `json:"mcp_token"` // bearer token for mcp_direct_url
}

// readyInfo is the JSON after READY.
type readyInfo struct {
	NextcloudURL string     `json:"nextcloud_url"`
	PanelURL     string     `json:"panel_url"`
	MCPURL       string     `json:"mcp_url"`        // through the simulated AppAPI proxy, with an app password
	MCPDirectURL string     `json:"mcp_direct_url"` // the app's own port, with a user's mcp_token
	AssistantURL string     `json:"assistant_url"`  // the simulated Assistant page (Search my files, Ask your files)
	Users        []demoUser `json:"users"`
}

// runDemo runs the simulator and the app together until ctx is cancelled.
func runDemo(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("demo", flag.ContinueOnError)
	fl.SetOutput(stderr)
	addr := fl.String("addr", "127.0.0.1:8585", "address of the simulated Nextcloud")
	appPort := fl.Int("app-port", 0, "the app's own port on 127.0.0.1 (mcp_direct_url); 0 picks a free one")
	dir := fl.String("dir", "", "folder to load into alice's files instead of the bundled sample")
	dataDir := fl.String("data", "", "state directory (index, queue); default a fresh temporary one")
	version := fl.String("nextcloud-version", ncsim.DefaultVersion, "Nextcloud release to simulate: "+strings.Join(ncsim.Versions, ", ")+" (or a full release such as 32.0.9)")
	pretty := fl.Bool("pretty-urls", false, "simulate Nextcloud's pretty URLs (links without /index.php, as the official Docker image has them)")
	// Only -h prints the help; a flag mistake is one line naming it.
	fl.SetOutput(io.Discard)
	fl.Usage = func() {}
	if err := fl.Parse(args); errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stderr, demoUsage)
		fl.SetOutput(stderr)
		fl.PrintDefaults()
		return err
	} else if err != nil {
		return fmt.Errorf("demo: %w (see \"hybridsearch-demo -h\")", err)
	}
	if fl.NArg() > 0 {
		return fmt.Errorf("demo: unexpected argument %q (see \"hybridsearch-demo -h\")", fl.Arg(0))
	}
	if *appPort < 0 || *appPort > 65535 {
		return fmt.Errorf("demo: --app-port %d is not a port", *appPort)
	}
	if err := ncsim.CheckVersion(*version); err != nil {
		return fmt.Errorf("demo: --nextcloud-version: %w", err)
	}
	level := getenv("LOG_LEVEL")
	if level == "" {
		level = "info"
	}
	logger := app.NewLogger(stderr, level, "text")

	if *dataDir == "" {
		tmp, err := os.MkdirTemp("", "hybridsearch-demo-")
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		defer os.RemoveAll(tmp)
		*dataDir = tmp
	}

	if err := os.MkdirAll(*dataDir, 0o700); err != nil {
		return fmt.Errorf("demo: data directory: %w", err)
	}
	sim, simURL, stopSim, err := startSimulator(*addr, *version, *pretty, logger)
	if err != nil {
		return err
	}
	defer stopSim()

	alice := sim.AddUser("alice", "Alice Liddell", true)
	bob := sim.AddUser("bob", "Bob Builder", false)
	if err := loadSample(sim, "alice", *dir); err != nil {
		return err
	}
	// One private note of bob's, so a session as alice can show that
	// nothing of another user's ever comes back.
	sim.SeedFile("bob", "/Private/Salary review.md", []byte(bobSample))

	m, err := startDemoApp(ctx, sim, *dataDir, *appPort, getenv, logger)
	if err != nil {
		return err
	}
	defer func() {
		if err := m.Close(); err != nil {
			logger.Error("app shutdown", "error", err)
		}
	}()

	// AppAPI copies the release's l10n/ into the apps folder on install
	// (ExAppArchiveFetcher::installTranslations).
	if err := sim.InstallTranslations(m.Config.AppID, l10n.Files); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	installCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := sim.Install(installCtx, m.Config.AppID); err != nil {
		return fmt.Errorf("demo: installing the app into the simulator: %w", err)
	}

	toks, err := m.DemoTokens(ctx, "alice", "bob")
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	info := readyInfo{
		NextcloudURL: simURL,
		PanelURL:     panelURL(simURL, m.Config.AppID, *pretty),
		MCPURL:       appapi.ProxyURL(simURL, m.Config.AppID) + "/mcp",
		MCPDirectURL: m.DirectMCPURL(),
		AssistantURL: simURL + "/index.php/apps/assistant/",
		Users: []demoUser{
			{UID: alice.UID, AppPassword: alice.AppPassword, MCPToken: toks["alice"]},
			{UID: bob.UID, AppPassword: bob.AppPassword, MCPToken: toks["bob"]},
		},
	}
	line, err := json.Marshal(info)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "READY %s\n", line)
	logger.Info("demo ready: open the panel URL and sign in as alice", "panel_url", info.PanelURL, "password", "alice",
		"nextcloud_version", sim.ServerVersion)

	if err := app.ServeUntil(ctx, m, logger); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	return nil
}

// startSimulator serves a fresh simulator of Nextcloud version on addr.
func startSimulator(addr, version string, pretty bool, logger *slog.Logger) (*ncsim.Server, string, func(), error) {
	sim := &ncsim.Server{NextcloudVersion: version, PrettyURLs: pretty, Logf: func(format string, args ...any) {
		logger.Debug(fmt.Sprintf(format, args...), "component", "ncsim")
	}}
	simURL, err := sim.Start(addr)
	if err != nil {
		return nil, "", nil, fmt.Errorf("demo: simulator address %s: %w", addr, err)
	}
	return sim, simURL, sim.Close, nil
}

// panelURL is the app's page in the simulated Nextcloud's navigation.
func panelURL(simURL, appID string, pretty bool) string {
	u := appapi.EmbeddedURL(simURL, appID, exapp.MenuName)
	if pretty {
		u = strings.Replace(u, "/index.php/", "/", 1)
	}
	return u
}

// loadSample loads dir, or the bundled sample when dir is "", into uid's
// files without firing events, as an admin's occ files:scan would.
func loadSample(sim *ncsim.Server, uid, dir string) error {
	if dir != "" {
		if _, err := sim.LoadDir(uid, "/", dir); err != nil {
			return fmt.Errorf("demo: loading %s: %w", dir, err)
		}
		return nil
	}
	return fs.WalkDir(sample, "sample", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := sample.ReadFile(p)
		if err != nil {
			return err
		}
		sim.SeedFile(uid, path.Clean("/"+strings.TrimPrefix(p, "sample/")), data)
		return nil
	})
}

// demoRegistration is the app's registration from the embedded info.xml.
// The process environment stands in for the admin: a declared variable set
// there overrides its <default>, as the values an admin enters at install
// reach the container instead of the defaults (AppAPI
// ExAppService::getAppInfo, deploy option environment_variables).
func demoRegistration(getenv func(string) string) (ncsim.ExAppRegistration, error) {
	reg, err := ncsim.ParseInfoXML(appinfo.InfoXML)
	if err != nil {
		return reg, fmt.Errorf("demo: appinfo/info.xml: %w", err)
	}
	reg.EnvOverrides = map[string]string{}
	for _, v := range reg.EnvVars {
		if val := getenv(v.Name); val != "" {
			reg.EnvOverrides[v.Name] = val
		}
	}
	return reg, nil
}

// startDemoApp registers the app from the embedded info.xml with the
// simulator, the way "occ app_api:app:register" does, and starts it in
// this process with the environment AppAPI would give it, on port (0: a
// free one). The port is opened first and handed to the app, so nothing
// can take it between the registration and the start.
func startDemoApp(ctx context.Context, sim *ncsim.Server, dataDir string, port int, getenv func(string) string, logger *slog.Logger) (*app.App, error) {
	reg, err := demoRegistration(getenv)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("demo: the app's port: %w", err)
	}
	handed := false
	defer func() {
		if !handed {
			_ = ln.Close()
		}
	}()
	port = ln.Addr().(*net.TCPAddr).Port
	reg.URL = fmt.Sprintf("http://127.0.0.1:%d", port)
	reg.Port = port
	env, err := sim.RegisterExApp(reg)
	if err != nil {
		return nil, fmt.Errorf("demo: registering the app: %w", err)
	}
	ollama := getenv("OLLAMA_HOST")
	if ollama == "" && !reachable(ctx, "127.0.0.1:11434") {
		logger.Info("no Ollama on 127.0.0.1:11434: semantic search is off in the demo (set OLLAMA_HOST to use one)")
		ollama = "off"
	}
	cfg, err := app.LoadConfig(func(k string) string {
		switch k {
		case "APP_PERSISTENT_STORAGE":
			return dataDir
		case "OLLAMA_HOST":
			return ollama
		case "SETTINGS_INTERVAL":
			if v := getenv(k); v != "" {
				return v
			}
			return "2s" // admin settings show within seconds in the demo
		}
		if v, ok := env.Lookup(k); ok {
			return v
		}
		return getenv(k)
	})
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	// The CLI commands (status, scan, retry) read the app's environment.
	envFile := filepath.Join(dataDir, "app.env")
	var lines strings.Builder
	for _, kv := range append(env.List(), "APP_PERSISTENT_STORAGE="+dataDir) {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&lines, "%s='%s'\n", k, strings.ReplaceAll(v, "'", `'\''`))
	}
	if err := writePrivateFile(envFile, []byte(lines.String())); err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	m := app.New(cfg, logger)
	m.Listener, handed = ln, true
	if err := m.Run(ctx); err != nil {
		_ = m.Close()
		return nil, fmt.Errorf("demo: starting the app: %w", err)
	}
	logger.Info("the CLI can talk to the demo app", "try", "set -a; . "+envFile+"; set +a; hybridsearch search --user alice kuberntes")
	return m, nil
}

// writePrivateFile replaces the file at name with data, readable by the
// owner only: it writes a new file (mode 0600) beside it and renames it
// over the old one, so an existing file's wider mode, or a symlink at
// name, never carries over (os.WriteFile keeps an existing file's mode).
func writePrivateFile(name string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o600)
	}
	if err == nil {
		err = os.Rename(tmp, name)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

// reachable reports whether something accepts TCP connections on addr.
func reachable(ctx context.Context, addr string) bool {
	d := net.Dialer{Timeout: time.Second}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	c.Close()
	return true
}
