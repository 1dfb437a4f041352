package hybridsearch_test

import (
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
)

func TestErrorKinds(t *testing.T) {
	err := hs.Errorf(hs.ENOTFOUND, "file %d: %w", 3, hs.Errorf(hs.EUNAVAILABLE, "down"))
	if err.Error() != "file 3: down" {
		t.Errorf("Error() = %q, want the cause once", err.Error())
	}
	if w := hs.WrapError(hs.EUNAVAILABLE, errPlain("dial tcp"), "could not queue"); w.Error() != "could not queue: dial tcp" {
		t.Errorf("WrapError.Error() = %q", w.Error())
	}
	if hs.ErrorKind(err) != hs.ENOTFOUND {
		t.Errorf("ErrorKind = %q", hs.ErrorKind(err))
	}
	if hs.ErrorKind(nil) != "" || hs.ErrorKind(errPlain("x")) != hs.EINTERNAL {
		t.Error("ErrorKind of nil or plain errors wrong")
	}
	if hs.ErrorMessage(errPlain("secret detail")) != "internal error" {
		t.Error("plain errors must not show their text")
	}
	if got := hs.PointID(1, 2); got != hs.PointID(1, 2) || got == hs.PointID(2, 1) || len(got) != 36 || got[14] != '5' {
		t.Errorf("PointID = %q, want a stable UUIDv5", got)
	}
}

type errPlain string

func (e errPlain) Error() string { return string(e) }

func TestRedactEndpoints(t *testing.T) {
	tests := []struct{ in, want string }{
		{"embedding: ollama at http://gpu1:11434 is unreachable", "embedding: ollama at [internal address] is unreachable"},
		{"store: qdrant http://qdrant:6334: deadline exceeded", "store: qdrant [internal address]: deadline exceeded"},
		{"nats: dial tcp 10.0.0.4:4222: connection refused", "nats: dial tcp [internal address]: connection refused"},
		{"dial tcp [::1]:6334: refused", "dial tcp [internal address]: refused"},
		{"ollama-gpu.internal:11434 timed out", "[internal address] timed out"},
		{`model "nomic-embed-text" is not available on https://ollama.lan/: run "ollama pull"`, `model "nomic-embed-text" is not available on [internal address]: run "ollama pull"`},
		{"search: the query is empty", "search: the query is empty"},
		{"nextcloud: SEARCH /remote.php/dav/: unreachable", "nextcloud: SEARCH /remote.php/dav/: unreachable"},
		{"30 CFR 75.1725 at 12:30", "30 CFR 75.1725 at 12:30"},
	}
	for _, tt := range tests {
		if got := hs.RedactEndpoints(tt.in); got != tt.want {
			t.Errorf("RedactEndpoints(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
