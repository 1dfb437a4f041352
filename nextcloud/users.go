package nextcloud

import (
	"context"
	"net/http"
	"slices"

	hs "github.com/hybrid-search/hybridsearch"
)

// IsAdmin reports whether user is in Nextcloud's admin group, asking
// GET /ocs/v1.php/cloud/user as that user (a user may read their own
// groups). The app uses it where the AppAPI proxy's own access level
// cannot be relied on: AppAPI ≤ 33.0.7 lets a failed ADMIN route fall
// through to a later USER route.
func (c *Client) IsAdmin(ctx context.Context, user hs.UserID) (bool, error) {
	if err := requireUser("is admin", user); err != nil {
		return false, err
	}
	var me struct {
		ID     string   `json:"id"`
		Groups []string `json:"groups"`
	}
	if err := c.ocs(ctx, user, http.MethodGet, "/ocs/v1.php/cloud/user", nil, nil, &me); err != nil {
		return false, err
	}
	return slices.Contains(me.Groups, "admin"), nil
}
