package natstest_test

import (
	"testing"

	"github.com/hybrid-search/hybridsearch/queue/natstest"
	"github.com/nats-io/nats.go/jetstream"
)

func TestRunAndConnect(t *testing.T) {
	s := natstest.Run(t)
	if !s.JetStreamEnabled() {
		t.Fatal("JetStream is not enabled")
	}
	nc := natstest.Connect(t, s)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	info, err := js.AccountInfo(t.Context())
	if err != nil {
		t.Fatalf("AccountInfo: %v", err)
	}
	if info.API.Level < 1 {
		t.Errorf("JetStream API level = %d, want >= 1 (per-message TTL)", info.API.Level)
	}
	if _, err := js.CreateStream(t.Context(), jetstream.StreamConfig{Name: "T", Subjects: []string{"t.>"}, Storage: jetstream.FileStorage}); err != nil {
		t.Fatalf("CreateStream on file storage: %v", err)
	}
}
