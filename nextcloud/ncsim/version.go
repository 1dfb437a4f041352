package ncsim

import (
	"fmt"
	"strconv"
	"strings"
)

// Versions lists the Nextcloud majors the simulator imitates, oldest first.
var Versions = []string{"32", "33", "34", "35"}

// DefaultVersion is the Nextcloud release used when Server.NextcloudVersion
// is empty.
const DefaultVersion = "34"

// release is a parsed Nextcloud (and, since 32, AppAPI) version. From
// Nextcloud 32 on, AppAPI's version equals the server's (app_api
// appinfo/info.xml at tags v32.0.0 to v35.0.0beta4).
type release struct {
	major, minor, patch int
}

// parseRelease reads "34", "32.0.9" or "35.0.0beta4" (a pre-release
// suffix is ignored). Only majors 32 to 35 are accepted.
func parseRelease(s string) (release, error) {
	parts := strings.SplitN(strings.TrimSpace(s), ".", 3)
	var r release
	for i, p := range parts {
		end := 0
		for end < len(p) && p[end] >= '0' && p[end] <= '9' {
			end++
		}
		if end == 0 || (end < len(p) && i < 2) {
			return release{}, fmt.Errorf("ncsim: bad Nextcloud version %q", s)
		}
		n, _ := strconv.Atoi(p[:end])
		switch i {
		case 0:
			r.major = n
		case 1:
			r.minor = n
		case 2:
			r.patch = n
		}
	}
	if r.major < 32 || r.major > 35 {
		return release{}, fmt.Errorf("ncsim: Nextcloud version %q: only 32, 33, 34 and 35 are simulated", s)
	}
	return r, nil
}

// String returns "major.minor.patch".
func (r release) String() string { return fmt.Sprintf("%d.%d.%d", r.major, r.minor, r.patch) }

// atLeast reports whether r is major.minor.patch or later.
func (r release) atLeast(major, minor, patch int) bool {
	if r.major != major {
		return r.major > major
	}
	if r.minor != minor {
		return r.minor > minor
	}
	return r.patch >= patch
}

// routeMatching is how AppAPI's proxy matches ExApp routes.
type routeMatching int

const (
	// matchLegacy is preg_match('/'.url.'/i', other): unanchored, on the
	// path without its leading slash, and a route whose access check fails
	// falls through to later routes (app_api v32.0.0-v32.0.8,
	// v33.0.0-v33.0.2: lib/Controller/ExAppProxyController.php
	// passesExAppProxyRoutesChecks).
	matchLegacy routeMatching = iota
	// matchAnchoredBare is ~^(?:url)~i on the path without its leading
	// slash; the first route matching path and verb decides (v32.0.9,
	// v33.0.3, v34.0.0beta2-beta5).
	matchAnchoredBare
	// matchCanonical is ~^(?:url)~i on "/"+path, then on the bare path;
	// the first route matching path and verb decides (v32.0.10+, v33.0.4+,
	// v34.0.0+, v35).
	matchCanonical
)

// routeMatching returns the proxy's route matching generation of r.
func (r release) routeMatching() routeMatching {
	switch {
	case r.major >= 34:
		return matchCanonical
	case r.major == 33 && r.atLeast(33, 0, 4), r.major == 32 && r.atLeast(32, 0, 10):
		return matchCanonical
	case r.major == 33 && r.atLeast(33, 0, 3), r.major == 32 && r.atLeast(32, 0, 9):
		return matchAnchoredBare
	}
	return matchLegacy
}

// infoXMLHeadersToExclude reports whether headers_to_exclude from an
// info.xml takes effect. Up to v34 ExAppMapper::registerExAppRoutes stores
// is_array(value) ? json_encode(value) : '[]', and an info.xml gives a
// string, so nothing is excluded; v35 decodes it in ExAppRouteHelper
// (app_api commit 8d57f2e9, first in v35.0.0beta1).
func (r release) infoXMLHeadersToExclude() bool { return r.major >= 35 }

// nodeUpdatedEvents reports whether writes to existing files also fire
// BeforeNodeUpdatedEvent and NodeUpdatedEvent (server
// lib/public/Files/Events/Node/NodeUpdatedEvent.php, @since 34.0.0).
func (r release) nodeUpdatedEvents() bool { return r.major >= 34 }

// taskTrigger reports whether AppAPI triggers an ExApp's task processing
// provider when a task for it is scheduled: its providers implement
// ITriggerableProvider (server lib/public/TaskProcessing/
// ITriggerableProvider.php, @since 33.0.0) from app_api v33.0.0 (commit
// 01b67f29, the providerId a query parameter since b43d5f4d). On 32 an
// ExApp has to poll tasks_provider/next.
func (r release) taskTrigger() bool { return r.major >= 33 }

// userFacingTaskErrors reports whether a task result's
// userFacingErrorMessage is kept and serialized (server 33: PR #55713,
// OCS PR #57491; nc_py_api PR #450 notes "Nextcloud < 33 ignores" it).
func (r release) userFacingTaskErrors() bool { return r.major >= 33 }

// release returns the simulated version, parsed from NextcloudVersion.
func (s *Server) release() release {
	return s.rel
}

// CheckVersion reports whether v is a version NextcloudVersion accepts.
func CheckVersion(v string) error {
	_, err := parseRelease(v)
	return err
}
