// Package ollamamsg keeps Ollama's own error texts short enough to log and
// show: the embedding and chat clients both quote them.
package ollamamsg

// Max caps how much of Ollama's own error text is kept.
const Max = 200

// Clip returns msg cut to Max bytes, marked with "..." when cut.
func Clip(msg string) string {
	if len(msg) > Max {
		return msg[:Max] + "..."
	}
	return msg
}
