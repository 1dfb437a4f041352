package ncsim

import (
	"bytes"
	"html/template"
	"net/http"
)

// The simulator's stand-in for the Assistant app's page (nextcloud/
// assistant, /apps/assistant/): a task type to choose among the available
// ones, a form built from its input shapes, and the task's progress and
// output. Its script (assistant.js) uses only the server's Task
// Processing OCS API, as the Assistant does: GET tasktypes, POST schedule
// (appId "assistant"), GET task/{id} until the task ends, POST
// tasks/{id}/cancel. It is a minimal page to try ExApp providers with,
// not a copy of the Assistant's interface.

var assistantTemplate = template.Must(template.New("assistant").Parse(`<div id="app-content" class="ncsim-app app-assistant">
<h2>Assistant</h2>
<form id="assistant-form" class="assistant-form" autocomplete="off">
<div class="declarative-form-field"><label class="field-title" for="assistant-type">Task</label>
<select id="assistant-type"></select>
<span class="hint" id="assistant-type-description"></span></div>
<div id="assistant-inputs"></div>
<div class="assistant-actions"><button type="submit" class="primary" id="assistant-run">Run</button>
<button type="button" id="assistant-cancel" hidden>Cancel</button></div>
</form>
<p class="ncsim-muted" id="assistant-empty" hidden>No task types are available: no provider is registered.</p>
<section id="assistant-result" aria-live="polite" hidden>
<h3>Result</h3>
<p class="assistant-status" id="assistant-status"></p>
<div id="assistant-output"></div>
</section>
</div>`))

// handleAssistantPage serves GET /index.php/apps/assistant/.
func (s *Server) handleAssistantPage(w http.ResponseWriter, r *http.Request) {
	uid, ok := s.requireLogin(w, r)
	if !ok {
		return
	}
	var buf bytes.Buffer
	if err := assistantTemplate.Execute(&buf, nil); err != nil {
		http.Error(w, "ncsim: render assistant: "+err.Error(), http.StatusInternalServerError)
		return
	}
	s.renderPage(w, r, http.StatusOK, uid, pageData{Title: "Assistant", AppID: "assistant",
		Nav:     s.navEntries(uid, assistantNavID),
		Styles:  []string{"/apps/assistant/css/ncsim-assistant.css"},
		Scripts: []string{"/apps/assistant/js/ncsim-assistant.js"}, Content: template.HTML(buf.String())})
}

// assistantNavID is the Assistant's navigation entry.
const assistantNavID = "assistant"

// routesAssistant registers the page and its script and style.
func (s *Server) routesAssistant(mux *http.ServeMux) {
	mux.HandleFunc("GET /index.php/apps/assistant/{$}", s.handleAssistantPage)
	mux.HandleFunc("GET /apps/assistant/js/ncsim-assistant.js", func(w http.ResponseWriter, r *http.Request) {
		serveStatic(w, "static/js/assistant.js")
	})
	mux.HandleFunc("GET /apps/assistant/css/ncsim-assistant.css", func(w http.ResponseWriter, r *http.Request) {
		serveStatic(w, "static/assistant.css")
	})
	mux.HandleFunc("GET /apps/assistant/img/app.svg", func(w http.ResponseWriter, r *http.Request) {
		serveStatic(w, "static/img/assistant.svg")
	})
}
