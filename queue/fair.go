package queue

import (
	"sync"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// Paces of a user's turns on the retry lane.
const (
	// firstPace is the pace of a user none of whose retries has finished.
	firstPace = 100 * time.Millisecond
	minPace   = time.Millisecond
	maxPace   = 10 * time.Minute
)

// turns keeps one user's retries from delaying another's on the retry
// lane. A process runs at most perUser retries of one user at once. A
// retry that comes due while its user is at that limit is put back until a
// turn of its own: a user's turns follow one another at the pace their
// retries take (a moving average, with a quarter to spare), so a user with
// a thousand failing files has them wait on the server, in order, while
// the other retry workers serve everyone else. It is safe for concurrent
// use.
type turns struct {
	perUser int
	now     func() time.Time
	mu      sync.Mutex
	users   map[hs.UserID]*userTurns
}

// userTurns is one user's state: small, and dropped once the user has
// nothing running and no turn ahead.
type userTurns struct {
	running int
	last    time.Time     // the latest turn handed out
	pace    time.Duration // how long the user's retries take, on average
}

func newTurns(perUser int) *turns {
	return &turns{perUser: max(perUser, 1), now: time.Now, users: map[hs.UserID]*userTurns{}}
}

// take admits a retry of user now and returns release, to call when it
// has ended; or, when user is at the limit, returns the retry's turn.
func (t *turns) take(user hs.UserID) (release func(), turn time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	u := t.users[user]
	if u == nil {
		u = &userTurns{pace: firstPace}
		t.users[user] = u
	}
	if u.running >= t.perUser {
		step := u.pace * 5 / 4 / time.Duration(t.perUser)
		u.last = later(u.last, now).Add(step)
		return nil, u.last
	}
	u.running++
	return func() { t.release(user, u, now) }, time.Time{}
}

// release ends a retry of user that started at start.
func (t *turns) release(user hs.UserID, u *userTurns, start time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	u.running--
	u.pace = min(max((u.pace*3+now.Sub(start))/4, minPace), maxPace)
	if u.running == 0 && now.After(u.last) {
		delete(t.users, user)
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
