package ncsim

import (
	"net/http"
	"time"
)

// taskHandler is a Task Processing OCS endpoint, called with the caller.
type taskHandler func(w http.ResponseWriter, r *http.Request, p principal)

// taskUser wraps a #[NoAdminRequired] endpoint: any logged-in user
// (a session, a password or app password, or an ExApp acting as a user);
// others get OCS 401 "Current user is not logged in".
func (s *Server) taskUser(h taskHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p := s.authenticate(r)
		if !p.hasUser() {
			writeOCS(w, r, http.StatusUnauthorized, "Current user is not logged in", nil)
			return
		}
		h(w, r, p)
	}
}

// taskExApp wraps an #[ExAppRequired] endpoint: only a caller AppAPI
// authenticated (its session has app_api set), with or without a user;
// others get 412 {"message": "ExApp required"}
// (SecurityMiddleware::beforeController, ExAppRequiredException).
func (s *Server) taskExApp(h taskHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p := s.authenticate(r)
		if !p.exApp() {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(http.StatusPreconditionFailed)
			_, _ = w.Write([]byte(`{"message":"ExApp required"}`))
			return
		}
		h(w, r, p)
	}
}

// writeTaskError writes a controller's error DataResponse:
// data {"message": ...} with the status.
func writeTaskError(w http.ResponseWriter, r *http.Request, err error) {
	te, ok := err.(*taskError)
	if !ok {
		te = &taskError{http.StatusInternalServerError, "Internal error"}
	}
	writeOCS(w, r, te.status, "", map[string]any{"message": te.message})
}

// handleTaskTypes serves GET /taskprocessing/tasktypes: the available
// types with their shapes (getTaskTypesInternal; empty maps as {}).
func (s *Server) handleTaskTypes(w http.ResponseWriter, r *http.Request, _ principal) {
	s.mu.Lock()
	types := map[string]any{}
	for id, at := range s.availableTypesLocked() {
		p := at.provider
		types[id] = map[string]any{
			"name": at.def.Name, "description": at.def.Description,
			"inputShape": shapeMap(at.def.Input), "outputShape": shapeMap(at.def.Output),
			"optionalInputShape": shapeMap(p.optionalIn), "optionalOutputShape": shapeMap(p.optionalOut),
			"inputShapeEnumValues": enumMap(p.inEnums), "optionalInputShapeEnumValues": enumMap(p.optInEnums),
			"outputShapeEnumValues": enumMap(p.outEnums), "optionalOutputShapeEnumValues": enumMap(p.optOutEnum),
			"inputShapeDefaults": objectOrEmpty(p.inDefaults), "optionalInputShapeDefaults": objectOrEmpty(p.optInDefaults),
		}
	}
	s.mu.Unlock()
	writeOCS(w, r, http.StatusOK, "", map[string]any{"types": objectOrEmpty(types)})
}

func shapeMap(shapes []taskShape) any {
	out := map[string]any{}
	for _, sh := range shapes {
		out[sh.Name] = map[string]any{"name": sh.Name, "description": sh.Description, "type": shapeTypeNames[sh.Type]}
	}
	return objectOrEmpty(out)
}

func enumMap(m map[string][]taskEnumValue) any {
	out := map[string]any{}
	for k, vals := range m {
		out[k] = vals
	}
	return objectOrEmpty(out)
}

// objectOrEmpty writes an empty map as {} (new stdClass), as the
// controller does for empty shapes.
func objectOrEmpty(m map[string]any) any {
	if len(m) == 0 {
		return struct{}{}
	}
	return m
}

// scheduleWindow and scheduleLimit are schedule's
// #[UserRateLimit(limit: 20, period: 120)].
const scheduleWindow = 120 * time.Second

func (s *Server) scheduleLimit() int {
	if s.TaskScheduleLimit != 0 {
		return s.TaskScheduleLimit
	}
	return 20
}

// handleTaskSchedule serves POST /taskprocessing/schedule {input, type,
// appId, customId}: the task, scheduled for the logged-in user.
func (s *Server) handleTaskSchedule(w http.ResponseWriter, r *http.Request, p principal) {
	if !s.allowSchedule(p.uid) {
		writeOCS(w, r, http.StatusTooManyRequests, "Rate limit exceeded", nil)
		return
	}
	params, err := readParams(r)
	if err != nil {
		writeOCS(w, r, http.StatusBadRequest, err.Error(), nil)
		return
	}
	typeID, ok1 := paramString(params, "type")
	appID, ok2 := paramString(params, "appId")
	input, ok3 := phpArrayValue(params["input"])
	if !ok1 || !ok2 || !ok3 {
		writeTaskError(w, r, &taskError{http.StatusInternalServerError, "Internal server error"})
		return
	}
	customID, _ := paramString(params, "customId")
	uid := p.uid
	t, err := s.scheduleTask(r.Context(), &uid, typeID, input, appID, customID)
	if err != nil {
		writeTaskError(w, r, err)
		return
	}
	s.writeTask(w, r, t)
}

// allowSchedule counts a schedule call of uid against the rate limit.
func (s *Server) allowSchedule(uid string) bool {
	limit := s.scheduleLimit()
	if limit < 0 {
		return true
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	recent := s.taskq.scheduled[uid][:0]
	for _, at := range s.taskq.scheduled[uid] {
		if now.Sub(at) < scheduleWindow {
			recent = append(recent, at)
		}
	}
	if len(recent) >= limit {
		s.taskq.scheduled[uid] = recent
		return false
	}
	s.taskq.scheduled[uid] = append(recent, now)
	return true
}

// writeTask answers {"task": ...}.
func (s *Server) writeTask(w http.ResponseWriter, r *http.Request, t *simTask) {
	s.mu.Lock()
	data := map[string]any{"task": t.json(s.release())}
	s.mu.Unlock()
	writeOCS(w, r, http.StatusOK, "", data)
}

// handleTaskGet serves GET /taskprocessing/task/{id}: the user's own task,
// else 404 "Task not found".
func (s *Server) handleTaskGet(w http.ResponseWriter, r *http.Request, p principal) {
	id := pathTaskID(r, "id")
	s.mu.Lock()
	t, ok := s.userTaskLocked(id, p.uid)
	s.mu.Unlock()
	if !ok {
		writeTaskError(w, r, &taskError{http.StatusNotFound, "Task not found"})
		return
	}
	s.writeTask(w, r, t)
}

// handleTaskCancel serves POST /taskprocessing/tasks/{taskId}/cancel.
func (s *Server) handleTaskCancel(w http.ResponseWriter, r *http.Request, p principal) {
	t, err := s.cancelTask(pathTaskID(r, "taskId"), p.uid)
	if err != nil {
		writeTaskError(w, r, err)
		return
	}
	s.writeTask(w, r, t)
}

// handleTaskNext serves GET /taskprocessing/tasks_provider/next
// ?providerIds[]=..&taskTypeIds[]=..: {"task", "provider": {"name"}}, or
// 204 with an empty body (BaseResponse::renderResult writes no body for
// 204).
func (s *Server) handleTaskNext(w http.ResponseWriter, r *http.Request, _ principal) {
	get := phpGet(r.URL.RawQuery)
	t, provider := s.claimTask(phpStrings(get["providerIds"]), phpStrings(get["taskTypeIds"]))
	if t == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	s.logf("ncsim: task %d claimed by provider %s", t.id, provider)
	s.mu.Lock()
	data := map[string]any{"task": t.json(s.release()), "provider": map[string]any{"name": provider}}
	s.mu.Unlock()
	writeOCS(w, r, http.StatusOK, "", data)
}

// handleTaskProgress serves POST /taskprocessing/tasks_provider/{taskId}/
// progress {progress}.
func (s *Server) handleTaskProgress(w http.ResponseWriter, r *http.Request, _ principal) {
	params, err := readParams(r)
	if err != nil {
		writeOCS(w, r, http.StatusBadRequest, err.Error(), nil)
		return
	}
	progress, ok := params["progress"]
	if !ok || !phpIsNumeric(progress) {
		writeTaskError(w, r, &taskError{http.StatusInternalServerError, "Internal error"})
		return
	}
	f, _ := phpNumericString(phpToString(progress))
	t, err := s.setTaskProgress(pathTaskID(r, "taskId"), f)
	if err != nil {
		writeTaskError(w, r, err)
		return
	}
	s.writeTask(w, r, t)
}

// handleTaskResult serves POST /taskprocessing/tasks_provider/{taskId}/
// result {output, errorMessage, userFacingErrorMessage}.
func (s *Server) handleTaskResult(w http.ResponseWriter, r *http.Request, _ principal) {
	params, err := readParams(r)
	if err != nil {
		writeOCS(w, r, http.StatusBadRequest, err.Error(), nil)
		return
	}
	var output map[string]any
	if v, ok := params["output"]; ok && v != nil {
		if output, ok = phpArrayValue(v); !ok {
			writeTaskError(w, r, &taskError{http.StatusInternalServerError, "Internal error"})
			return
		}
	}
	optString := func(key string) *string {
		if s, ok := paramString(params, key); ok {
			return &s
		}
		return nil
	}
	t, err := s.setTaskResult(pathTaskID(r, "taskId"), output, optString("errorMessage"), optString("userFacingErrorMessage"))
	if err != nil {
		writeTaskError(w, r, err)
		return
	}
	s.writeTask(w, r, t)
}

// pathTaskID reads an int path parameter as the controller casts it:
// anything not numeric is 0, which no task has.
func pathTaskID(r *http.Request, name string) int64 {
	return phpToInt(r.PathValue(name))
}

// phpGet is PHP's $_GET of a raw query: "a[]=x&a[]=y" is a list.
func phpGet(rawQuery string) map[string]any {
	out, _ := phpNodeValue(phpParseQuery(rawQuery)).(map[string]any)
	return out
}

// phpNodeValue turns a $_GET node into a JSON-like value: a string, or a
// map of its keys.
func phpNodeValue(n *phpQueryNode) any {
	if !n.isArray() {
		return n.value
	}
	m := make(map[string]any, len(n.keys))
	for _, k := range n.keys {
		m[k] = phpNodeValue(n.items[k])
	}
	return m
}

// phpStrings reads an array parameter's string values in key order (a
// scalar is a TypeError for an array parameter: nothing).
func phpStrings(v any) []string {
	entries, ok := phpArrayEntries(v)
	if !ok {
		return nil
	}
	var out []string
	for _, e := range entries {
		if s, ok := e.val.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
