package local

import (
	"slices"
	"strings"

	hs "github.com/hybrid-search/hybridsearch"
)

// A group holds the points of every file with one set of readers: a
// user's personal files, a group folder's files, the files one person
// shares with another. A user's searches look at the groups the user is
// a reader of and at nothing else, so no search touches a point its user
// may not read, and a file shared with many readers is stored once, not
// once per reader. Each group has its own part of the keyword index (the
// postings of its points, see segment.go) and, once it holds graphMin
// points with dense vectors, its own graph (graph.go).
//
// A file whose readers change moves to the group of its new readers: its
// points move to new slots (plan.go), as if rewritten.
type group struct {
	id      uint32 // never reused; segments name groups by it
	key     string // readers joined by NUL
	readers []hs.UserID
	slots   []int32    // live slots, unordered; index.gpos[s] is s's position
	files   []*fileRec // unordered; fileRec.gpos is a file's position
	dense   int        // live slots with a dense vector
	graph   *graph     // nil while the group is small
	tail    []int32    // its points' places in index.tail
}

// groupKey returns the key of a set of sorted, unique readers.
func groupKey(readers []hs.UserID) string {
	var b strings.Builder
	for i, u := range readers {
		if i > 0 {
			b.WriteByte(0)
		}
		b.WriteString(string(u))
	}
	return b.String()
}

// groupOf returns the group of readers, creating it when absent.
func (x *index) groupOf(readers []hs.UserID) *group {
	key := groupKey(readers)
	if g := x.groups[key]; g != nil {
		return g
	}
	x.nextGroup++
	g := &group{id: x.nextGroup, key: key, readers: slices.Clone(readers)}
	x.addGroup(g)
	return g
}

// addGroup registers g under its key, id and readers.
func (x *index) addGroup(g *group) {
	x.groups[g.key] = g
	x.groupByID[g.id] = g
	for _, u := range g.readers {
		gs := x.userGroups[u]
		i, _ := slices.BinarySearchFunc(gs, g.id, func(a *group, id uint32) int { return int(a.id) - int(id) })
		x.userGroups[u] = slices.Insert(gs, i, g)
	}
}

// dropGroup forgets an empty group.
func (x *index) dropGroup(g *group) {
	delete(x.groups, g.key)
	delete(x.groupByID, g.id)
	for _, u := range g.readers {
		gs := slices.DeleteFunc(x.userGroups[u], func(a *group) bool { return a == g })
		if len(gs) == 0 {
			delete(x.userGroups, u)
		} else {
			x.userGroups[u] = gs
		}
	}
	if g.graph != nil {
		x.closeGraph(g)
	}
}

// addFile puts f in group g.
func (g *group) addFile(f *fileRec) {
	f.group, f.gpos = g, len(g.files)
	g.files = append(g.files, f)
}

// removeFile takes f out of its group.
func (g *group) removeFile(f *fileRec) {
	last := g.files[len(g.files)-1]
	g.files[f.gpos], last.gpos = last, f.gpos
	g.files[len(g.files)-1] = nil
	g.files = g.files[:len(g.files)-1]
	f.group = nil
}

// addSlot puts live slot s in g.
func (x *index) addSlot(g *group, s int32) {
	x.gpos[s] = int32(len(g.slots))
	g.slots = append(g.slots, s)
	if x.dense[s] {
		g.dense++
	}
}

// removeSlot takes slot s out of g.
func (x *index) removeSlot(g *group, s int32) {
	i := x.gpos[s]
	last := g.slots[len(g.slots)-1]
	g.slots[i], x.gpos[last] = last, i
	g.slots = g.slots[:len(g.slots)-1]
	if x.dense[s] {
		g.dense--
	}
}

// readable reports whether user is a reader of g.
func (g *group) readable(user hs.UserID) bool {
	_, ok := slices.BinarySearch(g.readers, user)
	return ok
}
