package cli

import (
	"flag"
	"fmt"
	"io"

	"github.com/hybrid-search/hybridsearch/appinfo"
)

const installJSONUsage = `Usage: hybridsearch install-json [--port N] [--secret S] [--translations DIR] [--daemon NAME]

Prints the JSON that registers this build with AppAPI's manual_install
daemon, made from the info.xml built into the binary (id, name, version and
every route; without the routes Nextcloud's proxy forwards nothing):

  occ app_api:app:register hybrid_search manual_install \
    --json-info "$(hybridsearch install-json --port 23000 --secret "$APP_SECRET")" --wait-finish

Start the app first with the same APP_PORT and APP_SECRET.

Flags:
`

// InstallJSON prints appinfo.ManualInstallJSON for the flags.
func InstallJSON(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("install-json", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, installJSONUsage); fs.PrintDefaults() }
	var o appinfo.ManualInstall
	fs.IntVar(&o.Port, "port", 0, "APP_PORT the app listens on (default: AppAPI picks a free one)")
	fs.StringVar(&o.Secret, "secret", "", "APP_SECRET the app was started with (default: AppAPI generates one)")
	fs.StringVar(&o.L10nDir, "translations", "", "a folder on the Nextcloud server with the release's l10n/ (from hybrid_search-<version>.tar.gz)")
	fs.StringVar(&o.Daemon, "daemon", "", "the deploy daemon's name (default manual_install)")
	if err := ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return Usagef("install-json", "unexpected argument %q", fs.Arg(0))
	}
	b, err := appinfo.ManualInstallJSON(o)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, string(b))
	return err
}
