package local

// SetTailFlush sets how many points the keyword tail holds before it is
// written out as a segment, so that tests of a few hundred points write
// segments; it returns a function that restores the default. Tests call it
// before opening stores.
func SetTailFlush(n int) (restore func()) {
	old := tailFlush
	tailFlush = n
	return func() { tailFlush = old }
}

// CheckInvariants checks the store's index (internal_test.go) with the
// indexer paused.
func CheckInvariants(s *Store) error { return s.checkInvariants() }
