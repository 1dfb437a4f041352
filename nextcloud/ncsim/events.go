package ncsim

import "time"

// Event class names, as webhook_listeners reports them (the PHP class of
// the event). Sources: nextcloud/server lib/public/Files/Events/Node/*.php
// and apps/files_trashbin/lib/Events/*.php; see webhook_events.go.
const (
	NodeCreatedEvent       = `OCP\Files\Events\Node\NodeCreatedEvent`
	NodeWrittenEvent       = `OCP\Files\Events\Node\NodeWrittenEvent`
	NodeTouchedEvent       = `OCP\Files\Events\Node\NodeTouchedEvent`
	NodeDeletedEvent       = `OCP\Files\Events\Node\NodeDeletedEvent`
	NodeRenamedEvent       = `OCP\Files\Events\Node\NodeRenamedEvent`
	NodeCopiedEvent        = `OCP\Files\Events\Node\NodeCopiedEvent`
	BeforeNodeCreatedEvent = `OCP\Files\Events\Node\BeforeNodeCreatedEvent`
	BeforeNodeWrittenEvent = `OCP\Files\Events\Node\BeforeNodeWrittenEvent`
	BeforeNodeTouchedEvent = `OCP\Files\Events\Node\BeforeNodeTouchedEvent`
	BeforeNodeDeletedEvent = `OCP\Files\Events\Node\BeforeNodeDeletedEvent`
	BeforeNodeRenamedEvent = `OCP\Files\Events\Node\BeforeNodeRenamedEvent`
	BeforeNodeCopiedEvent  = `OCP\Files\Events\Node\BeforeNodeCopiedEvent`
	BeforeNodeReadEvent    = `OCP\Files\Events\Node\BeforeNodeReadEvent`
	// NodeUpdatedEvent and BeforeNodeUpdatedEvent exist from Nextcloud 34
	// (@since 34.0.0); they fire for writes to files that already exist.
	NodeUpdatedEvent       = `OCP\Files\Events\Node\NodeUpdatedEvent`
	BeforeNodeUpdatedEvent = `OCP\Files\Events\Node\BeforeNodeUpdatedEvent`
	// The trash bin's restore events live in the files_trashbin app (since
	// 28); there is no OCP\Files\Events\Node\NodeRestoredEvent.
	NodeRestoredEvent       = `OCA\Files_Trashbin\Events\NodeRestoredEvent`
	BeforeNodeRestoredEvent = `OCA\Files_Trashbin\Events\BeforeNodeRestoredEvent`
)

// GoneIDs says which events about a node that no longer exists carry its
// id (Server.GoneNodeIDs). Nextcloud serializes such a node as a
// NonExistingFile or NonExistingFolder and leaves the id out when it cannot
// be read (server PR #53648, merged 2025-06-23 for 32: "don't try to get
// fileid for non exising nodes when serializing events"; before it, rename
// webhooks failed outright, issue #50938). Whether it can be read depends
// on whether the hook had the node's file info at hand, which differs by
// code path; the admin manual (nextcloud/documentation PR #13853,
// admin_manual/webhook_listeners/index.rst) says only that NodeDeletedEvent
// and a two-node event's source or target "may not have an id field". The
// app must take every form.
type GoneIDs int

// The forms the simulator plays.
const (
	// GoneIDsMixed: NodeDeletedEvent carries the id (the file info was
	// cached before the delete), NodeRenamedEvent's source does not. The
	// default.
	GoneIDsMixed GoneIDs = iota
	// GoneIDsNone: neither carries an id.
	GoneIDsNone
	// GoneIDsAll: both carry the id.
	GoneIDsAll
)

// Node is a node in an event payload. ID 0 means the id is omitted, as
// Nextcloud does for nodes that no longer exist.
type Node struct {
	ID   int64  `json:"id,omitempty"`
	Path string `json:"path"` // "/<uid>/files/..." as the acting user sees it
}

// Event is one event the simulated server fired. Single-node events set
// Node; two-node events set Source and Target.
type Event struct {
	Class  string
	Node   *Node
	Source *Node
	Target *Node
	User   string // acting user, "" for none (cron, occ)
	Time   time.Time
}

// Events returns every event fired so far, in order.
func (s *Server) Events() []Event {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Event(nil), s.events...)
}

// emit records ev and hands it to the subscribers. Callers must not hold s.mu.
func (s *Server) emit(ev Event) {
	if ev.Time.IsZero() {
		ev.Time = s.now()
	}
	s.mu.Lock()
	s.events = append(s.events, ev)
	subs := append([]func(Event){}, s.subs...)
	s.mu.Unlock()
	for _, f := range subs {
		f(ev)
	}
}
