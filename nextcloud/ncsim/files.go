package ncsim

import "net/http"

// filesState holds the file trees, file ids, trash and shares.
// Owned by the files side of the simulator (WebDAV, sharing, Notes).
type filesState struct{}

func (s *Server) initFiles() {}

func (s *Server) routesFiles(mux *http.ServeMux) {}

// createHome creates the files root of a new user.
func (s *Server) createHome(uid string) {}
