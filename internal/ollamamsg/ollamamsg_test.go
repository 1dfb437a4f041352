package ollamamsg

import (
	"strings"
	"testing"
)

func TestClip(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"model not found", "model not found"},
		{strings.Repeat("a", Max), strings.Repeat("a", Max)},
		{strings.Repeat("a", Max+1), strings.Repeat("a", Max) + "..."},
	} {
		if got := Clip(tt.in); got != tt.want {
			t.Errorf("Clip(%d bytes) = %d bytes, want %d", len(tt.in), len(got), len(tt.want))
		}
	}
}
