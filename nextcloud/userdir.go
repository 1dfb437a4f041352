package nextcloud

import (
	"context"
	"sync"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// Defaults of a UserDirectory whose durations are zero.
const (
	DefaultUserListMaxAge  = time.Minute
	DefaultUserListRecheck = 2 * time.Second
)

// UserDirectory answers whether a Nextcloud user exists from AppAPI's list
// of every user id (ListUsers: GET /ocs/v1.php/apps/app_api/api/v1/users,
// [AA] lib/Service/ExAppService.php getNCUsersList, v32–v35). A call as a
// missing user fails like any bad AppAPI login (401, [AA]
// lib/Service/AppAPIService.php finalizeRequestToNC), so this list is how
// the app tells "no such user" from "try again later". The list is kept:
// a user found in it is trusted for MaxAge, and a user not found causes a
// new list only when the one at hand is older than Recheck, so a flood of
// jobs for users that do not exist costs one list per Recheck. It is safe
// for concurrent use.
//
// A user deleted in Nextcloud is thus seen as gone at most MaxAge after
// the deletion (plus one list's round trip).
type UserDirectory struct {
	// Client lists the users. Required.
	Client *Client
	// MaxAge is how long a listed user is trusted; 0 means
	// DefaultUserListMaxAge.
	MaxAge time.Duration
	// Recheck is how old the list must be before a user missing from it
	// causes a new one; 0 means DefaultUserListRecheck.
	Recheck time.Duration
	// Now is the clock the list's age is read on; nil means time.Now.
	Now func() time.Time

	mu      sync.Mutex
	users   map[hs.UserID]bool
	fetched time.Time
	loading chan struct{} // closed when the list being fetched is in
	err     error         // of the last fetch
}

// UserExists reports whether user exists in Nextcloud. It returns an error
// (EUNAVAILABLE, ...) only when the list is needed and cannot be had.
func (d *UserDirectory) UserExists(ctx context.Context, user hs.UserID) (bool, error) {
	return d.lookup(ctx, user, d.maxAge())
}

// Gone reports whether user no longer exists in Nextcloud: missing from a
// list at most Recheck old, and refused when the app calls as them
// (AppAPI answers 401 for a user it cannot find, [AA]
// lib/Service/AppAPIService.php finalizeRequestToNC). Both must agree, so
// a list that misses a user (a user backend that answered in part) never
// makes the app forget them. An error means it could not be told.
func (d *UserDirectory) Gone(ctx context.Context, user hs.UserID) (bool, error) {
	if user == "" {
		return false, nil
	}
	listed, err := d.lookup(ctx, user, d.recheck())
	if err != nil || listed {
		return false, err
	}
	_, err = d.Client.IsAdmin(ctx, user)
	switch hs.ErrorKind(err) {
	case "":
		return false, nil // Nextcloud answers as them, whatever the list says
	case hs.EUNAUTHORIZED:
		return true, nil
	}
	return false, err
}

// lookup answers from a list in which a listed user is trusted for trust
// and a missing one for Recheck, fetching a new list otherwise.
func (d *UserDirectory) lookup(ctx context.Context, user hs.UserID, trust time.Duration) (bool, error) {
	if user == "" {
		return false, nil
	}
	for {
		d.mu.Lock()
		age := d.now().Sub(d.fetched)
		if d.users != nil {
			if d.users[user] && age < trust {
				d.mu.Unlock()
				return true, nil
			}
			if !d.users[user] && age < d.recheck() {
				d.mu.Unlock()
				return false, nil
			}
		}
		if d.loading != nil {
			wait := d.loading
			d.mu.Unlock()
			select {
			case <-wait:
			case <-ctx.Done():
				return false, ctx.Err()
			}
			d.mu.Lock()
			err, fresh := d.err, d.now().Sub(d.fetched) < d.recheck()
			found := d.users[user]
			d.mu.Unlock()
			if err != nil {
				return false, err
			}
			if fresh {
				return found, nil
			}
			continue
		}
		d.loading = make(chan struct{})
		d.mu.Unlock()
		return d.load(ctx, user)
	}
}

// load fetches the list, stores it and answers for user.
func (d *UserDirectory) load(ctx context.Context, user hs.UserID) (bool, error) {
	ids, err := d.Client.ListUsers(ctx)
	d.mu.Lock()
	defer d.mu.Unlock()
	close(d.loading)
	d.loading, d.err = nil, err
	if err != nil {
		return false, err
	}
	d.users = make(map[hs.UserID]bool, len(ids))
	for _, id := range ids {
		d.users[id] = true
	}
	d.fetched = d.now()
	return d.users[user], nil
}

func (d *UserDirectory) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

func (d *UserDirectory) maxAge() time.Duration {
	if d.MaxAge > 0 {
		return d.MaxAge
	}
	return DefaultUserListMaxAge
}

func (d *UserDirectory) recheck() time.Duration {
	if d.Recheck > 0 {
		return d.Recheck
	}
	return DefaultUserListRecheck
}
