package ncsim

import "net/http"

// exApp is a registered external app.
type exApp struct {
	ID      string
	Name    string
	Version string
	Secret  string
	Enabled bool
}

// installing reports whether the app is in its install or update phase,
// when AppAPI accepts its status reports although it is disabled.
func (a *exApp) installing() bool { return false }

// appAPIState holds UI registrations, webhooks and deliveries.
// Owned by the AppAPI side of the simulator.
type appAPIState struct{}

func (s *Server) initAppAPI() {}

func (s *Server) routesAppAPI(mux *http.ServeMux) {}

func (s *Server) routesCore(mux *http.ServeMux) {
	mux.HandleFunc("/", s.notImplemented)
}
