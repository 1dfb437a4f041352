package webhook

import (
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// deleteGrace delays jobs of BeforeNodeDeletedEvent until the delete has
// happened (the event fires before it).
const deleteGrace = 3 * time.Second

// Jobs maps one parsed event to index jobs made at now (the job's time,
// to the nanosecond: the queue drops a job identical to one published in
// the last two minutes, and two writes in the same second are different
// changes). Paths outside /<uid>/files/ give none, and so do events that
// announce a change (their after-event follows). Each job belongs to the
// owner named by the node's path, whoever signed the delivery. A missing
// or unknown class, or an event without the paths its class needs, is
// EINVALID.
func Jobs(env Envelope, now time.Time) ([]hs.IndexJob, error) {
	if env.Event == nil || env.Event.Class == "" {
		return nil, hs.Errorf(hs.EINVALID, "webhook body has no event class")
	}
	ev := env.Event
	fe, ok := FileEventByClass(ev.Class)
	if !ok {
		return nil, hs.Errorf(hs.EINVALID, "unsupported event class %q: only file node events are handled", ev.Class)
	}
	name := fe.Name
	at := now
	job := func(n *Node, old *Node) (hs.IndexJob, bool) {
		user, rel, ok := SplitNodePath(n.Path)
		if !ok {
			return hs.IndexJob{}, false
		}
		j := hs.IndexJob{FileID: hs.FileID(n.ID), User: user, Path: rel, Event: name, Reason: hs.ReasonEvent, Time: at}
		if old != nil {
			if _, oldRel, ok := SplitNodePath(old.Path); ok {
				j.OldPath = oldRel
			}
		}
		return j, true
	}
	var jobs []hs.IndexJob
	// Which events exist and how they are shaped is FileEvents' to say.
	switch {
	case fe.Announces():
		// The change has not happened yet; its after-event follows.
	case fe.TwoNodes():
		if ev.Target == nil || ev.Target.Path == "" || ev.Source == nil || ev.Source.Path == "" {
			return nil, hs.Errorf(hs.EINVALID, "%s without source and target paths", name)
		}
		j, ok := job(ev.Target, ev.Source)
		if ok {
			jobs = append(jobs, j)
		}
		if name == "NodeRenamedEvent" && !ok {
			// Moved out of the user's files: the old path is gone.
			if j, ok := job(ev.Source, nil); ok {
				jobs = append(jobs, j)
			}
		}
	default:
		if ev.Node == nil || ev.Node.Path == "" {
			return nil, hs.Errorf(hs.EINVALID, "%s without a node path", name)
		}
		if j, ok := job(ev.Node, nil); ok {
			if name == "BeforeNodeDeletedEvent" {
				j.NotBefore = now.Add(deleteGrace)
			}
			jobs = append(jobs, j)
		}
	}
	return jobs, nil
}
