package webhook_test

import (
	"testing"

	"github.com/hybrid-search/hybridsearch/nextcloud/webhook"
)

// TestFileEventShapes: the webhook intake decides from FileEvents alone
// which events make jobs and which name two nodes; no other list of
// event names exists.
func TestFileEventShapes(t *testing.T) {
	twoNodes := map[string]bool{"NodeRenamedEvent": true, "NodeCopiedEvent": true, "NodeRestoredEvent": true,
		"BeforeNodeRenamedEvent": true, "BeforeNodeCopiedEvent": true, "BeforeNodeRestoredEvent": true}
	makesJob := map[string]bool{"NodeCreatedEvent": true, "NodeWrittenEvent": true, "NodeRenamedEvent": true, "NodeCopiedEvent": true,
		"NodeRestoredEvent": true, "BeforeNodeDeletedEvent": true, "NodeDeletedEvent": true, "NodeTouchedEvent": true, "NodeUpdatedEvent": true}
	for _, e := range webhook.FileEvents {
		if got := e.TwoNodes(); got != twoNodes[e.Name] {
			t.Errorf("%s: TwoNodes = %v", e.Name, got)
		}
		if got := !e.Announces(); got != makesJob[e.Name] {
			t.Errorf("%s: makes a job = %v", e.Name, got)
		}
		if e.Register && e.Announces() {
			t.Errorf("%s is registered but makes no job", e.Name)
		}
	}
}
