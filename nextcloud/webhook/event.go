package webhook

import "strings"

// FileEvent is a Nextcloud file event class the app knows: the ones it
// registers webhooks for and the ones its webhook intake accepts. The
// classes are Nextcloud's IWebhookCompatibleEvent implementors from
// nextcloud/server lib/public/Files/Events/Node/ and
// apps/files_trashbin/lib/Events/ (docs/nextcloud-compatibility.md).
type FileEvent struct {
	// Class is the fully qualified PHP class, as webhook_listeners names it.
	Class string
	// Name is the short name carried by IndexJob.Event.
	Name string
	// PathKey is the payload key whose path the app's webhook filter
	// checks: event.node.path, or event.target.path for two-node events.
	PathKey string
	// Register is set for the classes the app registers webhooks for.
	// (Before)NodeUpdatedEvent exist from Nextcloud 34 only, and every
	// version still fires NodeWrittenEvent for the same writes.
	Register bool
}

const (
	nodeEvents  = `OCP\Files\Events\Node\`
	trashEvents = `OCA\Files_Trashbin\Events\`
	nodePath    = "event.node.path"
	targetPath  = "event.target.path"
)

// FileEvents lists every file event class the app accepts, registered
// ones first.
var FileEvents = []FileEvent{
	{nodeEvents + "NodeCreatedEvent", "NodeCreatedEvent", nodePath, true},
	{nodeEvents + "NodeWrittenEvent", "NodeWrittenEvent", nodePath, true},
	{nodeEvents + "NodeRenamedEvent", "NodeRenamedEvent", targetPath, true},
	{nodeEvents + "NodeCopiedEvent", "NodeCopiedEvent", targetPath, true},
	{trashEvents + "NodeRestoredEvent", "NodeRestoredEvent", targetPath, true},
	{nodeEvents + "BeforeNodeDeletedEvent", "BeforeNodeDeletedEvent", nodePath, true},
	{nodeEvents + "NodeDeletedEvent", "NodeDeletedEvent", nodePath, true},
	{nodeEvents + "NodeTouchedEvent", "NodeTouchedEvent", nodePath, false},
	{nodeEvents + "NodeUpdatedEvent", "NodeUpdatedEvent", nodePath, false},
	{nodeEvents + "BeforeNodeCreatedEvent", "BeforeNodeCreatedEvent", nodePath, false},
	{nodeEvents + "BeforeNodeWrittenEvent", "BeforeNodeWrittenEvent", nodePath, false},
	{nodeEvents + "BeforeNodeTouchedEvent", "BeforeNodeTouchedEvent", nodePath, false},
	{nodeEvents + "BeforeNodeUpdatedEvent", "BeforeNodeUpdatedEvent", nodePath, false},
	{nodeEvents + "BeforeNodeReadEvent", "BeforeNodeReadEvent", nodePath, false},
	{nodeEvents + "BeforeNodeRenamedEvent", "BeforeNodeRenamedEvent", targetPath, false},
	{nodeEvents + "BeforeNodeCopiedEvent", "BeforeNodeCopiedEvent", targetPath, false},
	{trashEvents + "BeforeNodeRestoredEvent", "BeforeNodeRestoredEvent", targetPath, false},
}

// TwoNodes reports whether the event names a source and a target node
// (rename, copy, restore) rather than one node.
func (e FileEvent) TwoNodes() bool { return e.PathKey == targetPath }

// Announces reports whether the event fires before its change happens,
// so it makes no job: its after-event follows. BeforeNodeDeletedEvent is
// the exception: the last moment the node's id and path are known.
func (e FileEvent) Announces() bool {
	return strings.HasPrefix(e.Name, "Before") && e.Name != "BeforeNodeDeletedEvent"
}

// FileEventByClass returns the file event of a class name as a webhook
// payload or a registration gives it (leading backslashes are ignored).
func FileEventByClass(class string) (FileEvent, bool) {
	class = strings.TrimLeft(class, `\`)
	for _, e := range FileEvents {
		if e.Class == class {
			return e, true
		}
	}
	return FileEvent{}, false
}
