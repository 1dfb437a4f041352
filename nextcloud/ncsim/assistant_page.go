package ncsim

import (
	"net/http"

	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim/shell"
)

// The simulator's stand-in for the Assistant app's page (nextcloud/
// assistant, /apps/assistant/): a task type to choose among the available
// ones, a form built from its input shapes, and the task's progress and
// output. Its script (assistant.js) uses only the server's Task
// Processing OCS API, as the Assistant does: GET tasktypes, POST schedule
// (appId "assistant"), GET task/{id} until the task ends, POST
// tasks/{id}/cancel. It is a minimal page to try ExApp providers with,
// not a copy of the Assistant's interface.

// handleAssistantPage serves GET /index.php/apps/assistant/.
func (s *Server) handleAssistantPage(w http.ResponseWriter, r *http.Request) {
	uid, ok := s.requireLogin(w, r)
	if !ok {
		return
	}
	s.renderPage(w, r, http.StatusOK, uid, shell.Page{Title: "Assistant", AppID: "assistant",
		Nav:     s.navEntries(uid, assistantNavID),
		Styles:  []string{"/apps/assistant/css/ncsim-assistant.css"},
		Scripts: []string{"/apps/assistant/js/ncsim-assistant.js"}, Content: shell.Assistant})
}

// assistantNavID is the Assistant's navigation entry.
const assistantNavID = "assistant"

// routesAssistant registers the page (its script and style are among
// shell.Routes).
func (s *Server) routesAssistant(mux *http.ServeMux) {
	mux.HandleFunc("GET /index.php/apps/assistant/{$}", s.handleAssistantPage)
}
