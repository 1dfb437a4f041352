package nextcloud

import (
	"context"
	"net/http"

	hs "github.com/hybrid-search/hybridsearch"
)

// ServerStatus is what /status.php reports.
type ServerStatus struct {
	Installed      bool   `json:"installed"`
	Maintenance    bool   `json:"maintenance"`
	NeedsDBUpgrade bool   `json:"needsDbUpgrade"`
	Version        string `json:"version"`       // e.g. "32.0.1.2"
	VersionString  string `json:"versionstring"` // e.g. "32.0.1"
	ProductName    string `json:"productname"`
}

// Ping checks that Nextcloud is up and usable (GET /status.php, without
// credentials). EUNAVAILABLE when it is unreachable, not installed, in
// maintenance mode or waiting for a database upgrade.
func (c *Client) Ping(ctx context.Context) (ServerStatus, error) {
	r := &request{method: http.MethodGet, path: "/status.php", noAuth: true,
		header: http.Header{"Accept": {"application/json"}}}
	var st ServerStatus
	if err := c.getJSON(ctx, r, &st); err != nil {
		if hs.ErrorKind(err) != hs.EUNAVAILABLE {
			err = hs.WrapError(hs.EUNAVAILABLE, err, "nextcloud: status: unusable answer")
		}
		return st, err
	}
	if !st.Installed || st.Maintenance || st.NeedsDBUpgrade {
		return st, errorf(hs.EUNAVAILABLE, "status: installed=%t maintenance=%t needsDbUpgrade=%t",
			st.Installed, st.Maintenance, st.NeedsDBUpgrade)
	}
	return st, nil
}
