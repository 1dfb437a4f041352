// Command ncsim runs the in-memory Nextcloud simulator (nextcloud/ncsim)
// on its own, for frontend and ExApp work without a real Nextcloud.
//
// Run "ncsim -h" for the flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

const usage = `ncsim — a simulated Nextcloud (AppAPI, webhooks, WebDAV, Notes) for development

Usage:
  ncsim [flags]

It serves one in-memory Nextcloud until Ctrl-C. Users log in at
<addr>/index.php/login with their uid as password, or use the app password
printed at start (Basic or Bearer auth).

To develop an ExApp against it:
  1. ncsim --app-info appinfo/info.xml --app-url http://127.0.0.1:23000 --env-file /tmp/app.env --install
     (registers the app and prints the environment AppAPI would give it)
  2. start the app with that environment, e.g.  set -a; . /tmp/app.env; set +a; ./myapp
  3. ncsim waits for the app's /heartbeat, then runs /init and /enabled (--install)
  4. open <addr>/index.php/apps/files/ and follow the app's entry in the top menu

Flags:
`

// userFlag collects repeated --user uid[:admin] values.
type userFlag []string

func (u *userFlag) String() string     { return strings.Join(*u, ",") }
func (u *userFlag) Set(v string) error { *u = append(*u, v); return nil }

// options are the parsed flags.
type options struct {
	addr, dir, appInfo, appURL, envFile string
	version                             string
	users                               []string
	install, verbose, pretty            bool
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	var users userFlag
	fs := flag.NewFlagSet("ncsim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8585", "address to listen on")
	fs.Var(&users, "user", "a user to create, uid or uid:admin; repeatable (default alice:admin and bob)")
	fs.StringVar(&o.dir, "dir", "", "a folder to load into the first user's files")
	fs.StringVar(&o.appInfo, "app-info", "", "an ExApp's appinfo/info.xml to register (manual_install)")
	fs.StringVar(&o.appURL, "app-url", "", "where the ExApp listens, http://127.0.0.1:PORT (default: first free APP_PORT from 23000)")
	fs.StringVar(&o.envFile, "env-file", "", "also write the ExApp environment to this file as KEY='VALUE' lines")
	fs.BoolVar(&o.install, "install", false, "run the install flow (heartbeat, /init, /enabled) once the app answers")
	fs.StringVar(&o.version, "nextcloud-version", ncsim.DefaultVersion, "Nextcloud release to imitate: "+strings.Join(ncsim.Versions, ", ")+" or a full release such as 32.0.9")
	fs.BoolVar(&o.pretty, "pretty-urls", false, "pretty URLs: links without /index.php, and such paths served (as the official Docker image has them)")
	fs.BoolVar(&o.verbose, "verbose", false, "log every simulator action")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err := ncsim.CheckVersion(o.version); err != nil {
		return o, err
	}
	if (o.appURL != "" || o.install || o.envFile != "") && o.appInfo == "" {
		return o, errors.New("--app-url, --env-file and --install need --app-info")
	}
	o.users = users
	if len(o.users) == 0 {
		o.users = []string{"alice:admin", "bob"}
	}
	return o, nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "ncsim:", err)
		os.Exit(1)
	}
}

// run serves the simulator until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	level := slog.LevelInfo
	if o.verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	sim := &ncsim.Server{NextcloudVersion: o.version, PrettyURLs: o.pretty, Logf: func(format string, args ...any) {
		logger.Debug(fmt.Sprintf(format, args...))
	}}
	base, err := sim.Start(o.addr)
	if err != nil {
		return err
	}
	defer sim.Close()

	fmt.Fprintf(stdout, "Nextcloud %s simulator at %s (login: %s/index.php/login)\n\nUsers:\n", sim.ServerVersion, base, base)
	var first string
	for _, spec := range o.users {
		uid, role, _ := strings.Cut(spec, ":")
		u, err := addUser(sim, uid, role)
		if err != nil {
			return err
		}
		if first == "" {
			first = uid
		}
		admin := ""
		if u.Admin {
			admin = " (admin)"
		}
		fmt.Fprintf(stdout, "  %s%s  password %s  app password %s\n", u.UID, admin, u.Password, u.AppPassword)
	}
	if o.dir != "" {
		n, err := sim.LoadDir(first, "/", o.dir)
		if err != nil {
			return fmt.Errorf("load %s: %w", o.dir, err)
		}
		fmt.Fprintf(stdout, "\nLoaded %d files from %s into %s's files.\n", n, o.dir, first)
	}
	if o.appInfo != "" {
		appID, err := registerApp(sim, o, stdout)
		if err != nil {
			return err
		}
		if o.install {
			go func() {
				logger.Info("waiting for the app's heartbeat, then installing", "app", appID)
				if err := sim.Install(ctx, appID); err != nil {
					logger.Error("install failed", "app", appID, "error", err)
					return
				}
				logger.Info("app installed and enabled", "app", appID,
					"page", base+"/index.php/apps/files/")
			}()
		}
	}
	fmt.Fprintln(stdout, "\nPress Ctrl-C to stop.")
	<-ctx.Done()
	logger.Info("shutting down")
	return nil
}

// addUser creates uid; role is "" or "admin".
func addUser(sim *ncsim.Server, uid, role string) (u ncsim.User, err error) {
	if role != "" && role != "admin" {
		return u, fmt.Errorf("--user %s:%s: the role must be admin or nothing", uid, role)
	}
	defer func() {
		if r := recover(); r != nil { // AddUser panics on a bad or duplicate uid
			err = fmt.Errorf("--user %s: %v", uid, r)
		}
	}()
	return sim.AddUser(uid, "", role == "admin"), nil
}

// registerApp registers the ExApp of o.appInfo and prints its environment.
func registerApp(sim *ncsim.Server, o options, stdout io.Writer) (string, error) {
	data, err := os.ReadFile(o.appInfo)
	if err != nil {
		return "", fmt.Errorf("read app info: %w", err)
	}
	reg, err := ncsim.ParseInfoXML(data)
	if err != nil {
		return "", err
	}
	reg.URL = o.appURL
	env, err := sim.RegisterExApp(reg)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(stdout, "\nRegistered ExApp %s %s. Its environment:\n\n", reg.ID, reg.Version)
	for _, line := range env.List() {
		fmt.Fprintln(stdout, line)
	}
	if o.envFile != "" {
		var b strings.Builder
		for _, v := range env {
			fmt.Fprintf(&b, "%s='%s'\n", v.Name, strings.ReplaceAll(v.Value, "'", `'\''`))
		}
		if err := os.WriteFile(o.envFile, []byte(b.String()), 0o600); err != nil {
			return "", fmt.Errorf("write env file: %w", err)
		}
		fmt.Fprintf(stdout, "\n(also written to %s)\n", o.envFile)
	}
	routes := make([]string, 0, len(reg.Routes))
	for _, r := range reg.Routes {
		routes = append(routes, fmt.Sprintf("%s %s %s", r.Verb, r.URL, r.AccessLevel))
	}
	sort.Strings(routes)
	fmt.Fprintf(stdout, "\nProxy routes (%s/index.php/apps/app_api/proxy/%s/...):\n  %s\n",
		sim.BaseURL, reg.ID, strings.Join(routes, "\n  "))
	return reg.ID, nil
}
