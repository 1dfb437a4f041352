package ncsim

import "fmt"

// DeleteUser deletes uid the way Nextcloud does, and panics if there is no
// such user:
//   - the account goes, and with it every session and app password
//     ([SRV] lib/private/User/User.php delete @0005a244), so AppAPI refuses
//     calls as the user from then on (401) and the user leaves AppAPI's
//     user list;
//   - user shares the user made or received are deleted ([SRV]
//     lib/private/Share20/DefaultShareProvider.php userDeleted @0011d83b,
//     run by the share manager's user-deletion hook), so recipients lose
//     the user's files;
//   - the home storage and its trash are removed on the storage itself,
//     not through the node API, so no file event and no webhook fires.
func (s *Server) DeleteUser(uid string) {
	s.init()
	if !s.userExists(uid) {
		panic(fmt.Sprintf("ncsim: DeleteUser: no user %q", uid))
	}
	now := s.now().Unix()
	fs := &s.files
	fs.mu.Lock()
	for _, sh := range fs.sortedShares() {
		if sh.owner == uid || sh.with == uid || sh.node.owner == uid {
			fs.deleteShare(sh, now)
		}
	}
	if u := fs.user(uid); u != nil {
		u.root.homeOf = "" // nothing below it is live any more
		fs.forget(u.root)
		for _, item := range u.trash {
			fs.forget(item.root)
		}
		delete(fs.users, uid)
	}
	fs.mu.Unlock()
	s.mu.Lock()
	delete(s.users, uid)
	for token, owner := range s.sessions {
		if owner == uid {
			delete(s.sessions, token)
		}
	}
	s.mu.Unlock()
	s.logf("ncsim: deleted user %s", uid)
}
