package ncsim

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// availableType is a task type Manager::getAvailableTaskTypes offers: its
// definition and its preferred provider.
type availableType struct {
	def      *customTaskType
	provider *taskProvider
}

// availableTypesLocked lists the available task types. Only enabled apps'
// providers count (findAllEnabled); each brings its custom task type
// (GetTaskProcessingProvidersListener). The preferred provider of a type
// is the first provider for it (Manager::getPreferredProvider without an
// admin preference). The simulator knows no built-in task types (core:*),
// which need a PHP provider. Callers hold s.mu.
func (s *Server) availableTypesLocked() map[string]availableType {
	out := map[string]availableType{}
	var enabled []*taskProvider
	for _, p := range s.taskq.providers {
		if a, ok := s.apps[p.appID]; ok && a.enabled {
			enabled = append(enabled, p)
		}
	}
	for _, p := range enabled {
		if p.custom == nil {
			continue
		}
		if _, seen := out[p.custom.ID]; seen {
			continue
		}
		for _, q := range enabled {
			if q.taskType == p.custom.ID {
				out[p.custom.ID] = availableType{def: p.custom, provider: q}
				break
			}
		}
	}
	return out
}

// taskError is a failed Task Processing call: the HTTP (OCS v2) status and
// the message the controller returns in data.message.
type taskError struct {
	status  int
	message string
}

func (e *taskError) Error() string { return fmt.Sprintf("%d %s", e.status, e.message) }

var errTaskNotFound = &taskError{http.StatusNotFound, "Not found"}

// scheduleTask is Manager::scheduleTask for uid (nil: no user): the type
// must be available (412), the input must pass the shapes (400); then the
// task is stored, scheduled, and on Nextcloud 33 and later the preferred
// provider is triggered when no task of the type is running
// (ITriggerableProvider::trigger, which AppAPI turns into POST
// /trigger?providerId=<id>). The trigger runs before the answer, as it
// does inside the scheduling request.
func (s *Server) scheduleTask(ctx context.Context, uid *string, typeID string, input map[string]any, appID, customID string) (*simTask, error) {
	now := s.now()
	s.mu.Lock()
	at, ok := s.availableTypesLocked()[typeID]
	if !ok {
		s.mu.Unlock()
		return nil, &taskError{http.StatusPreconditionFailed, "The given provider is not available"}
	}
	in, err := prepareTaskInput(at, input)
	if err != nil {
		s.mu.Unlock()
		return nil, &taskError{http.StatusBadRequest, err.Error()}
	}
	s.taskq.nextID++
	t := &simTask{id: s.taskq.nextID, taskType: typeID, appID: appID, userID: uid, customID: customID, input: in,
		status: taskScheduled, scheduledAt: now.Unix(), lastUpdated: now.Unix(),
		completionExpectedAt: now.Add(time.Duration(at.provider.expectedRuntime) * time.Second).Unix()}
	s.taskq.tasks[t.id] = t
	trigger := s.release().taskTrigger() && !s.typeRunningLocked(typeID)
	prov := at.provider
	s.mu.Unlock()
	s.logf("ncsim: task %d (%s) scheduled", t.id, typeID)
	if trigger {
		s.triggerProvider(ctx, prov)
	}
	return t, nil
}

// typeRunningLocked reports whether a task of typeID is running.
func (s *Server) typeRunningLocked(typeID string) bool {
	for _, t := range s.taskq.tasks {
		if t.taskType == typeID && t.status == taskRunning {
			return true
		}
	}
	return false
}

// triggerProvider is the provider's trigger(): requestToExApp($exApp,
// '/trigger?'.http_build_query(['providerId' => id])), POST, no user, no
// request (AA-REQUEST-ID "CLI"), AppAPI's default timeout of 3 s. The
// answer is not read; failures are only logged.
func (s *Server) triggerProvider(ctx context.Context, p *taskProvider) {
	app, ok := s.exAppRef(p.appID)
	rec := TaskTrigger{AppID: p.appID, ProviderID: p.id, Time: s.now()}
	if ok {
		route := "/trigger?" + url.Values{"providerId": {p.id}}.Encode()
		resp, cancel, err := s.callExApp(context.WithoutCancel(ctx), app, exAppCall{method: http.MethodPost, route: route, timeout: s.exAppRequestTimeout()})
		if err != nil {
			rec.Err = err
			s.logf("ncsim: Error during request to ExApp %s: %v", p.appID, err)
		} else {
			rec.Status = resp.StatusCode
			resp.Body.Close()
			cancel()
		}
	}
	s.mu.Lock()
	s.taskq.triggers = append(s.taskq.triggers, rec)
	s.mu.Unlock()
}

// prepareTaskInput is Manager::prepareTask's input part: validateInput of
// the required and the optional slots, then the input without unknown
// keys and with the defaults filled in (fillInputDefaults).
func prepareTaskInput(at availableType, input map[string]any) (map[string]any, error) {
	p := at.provider
	if err := validateTaskInput(at.def.Input, p.inDefaults, p.inEnums, input, false); err != nil {
		return nil, err
	}
	if err := validateTaskInput(p.optionalIn, p.optInDefaults, p.optInEnums, input, true); err != nil {
		return nil, err
	}
	out := map[string]any{}
	for _, k := range sortedKeys(p.inDefaults) {
		out[k] = p.inDefaults[k]
	}
	for _, k := range sortedKeys(p.optInDefaults) {
		out[k] = p.optInDefaults[k]
	}
	for _, spec := range [][]taskShape{at.def.Input, p.optionalIn} {
		for _, sh := range spec {
			if v, ok := input[sh.Name]; ok {
				out[sh.Name] = v
			}
		}
	}
	return out, nil
}

// validateTaskInput is Manager::validateInput.
func validateTaskInput(spec []taskShape, defaults map[string]any, enums map[string][]taskEnumValue, io map[string]any, optional bool) error {
	for _, sh := range spec {
		v, set := io[sh.Name]
		if !set || v == nil { // isset
			if optional {
				continue
			}
			if d, ok := defaults[sh.Name]; ok && d != nil {
				if isListShape(sh.Type) {
					return errors.New("Provider tried to set a default value for a non-scalar slot")
				}
				if isFileShape(sh.Type) {
					return errors.New("Provider tried to set a default value for a slot that is not text or number")
				}
				if err := validateShapeValue(sh.Type, d, false); err != nil {
					return err
				}
				continue
			}
			return fmt.Errorf("Missing key: %q", sh.Name)
		}
		err := validateShapeValue(sh.Type, v, false)
		if err == nil && sh.Type == shapeEnum {
			vals, ok := enums[sh.Name]
			if !ok {
				err = fmt.Errorf("Provider did not provide enum values for an enum slot: %q", sh.Name)
			} else {
				err = validateEnum(v, vals)
			}
		}
		if err != nil {
			return fmt.Errorf("Failed to validate input key %q: %s", sh.Name, err)
		}
	}
	return nil
}

// validateShapeValue is EShapeType::validateInput (output false) or
// validateOutputWithFileIds (output true): texts are strings, numbers and
// file ids numeric, lists arrays of those.
func validateShapeValue(t int, v any, output bool) error {
	name := shapeTypeNames[t]
	isText := func(x any) bool { _, ok := x.(string); return ok }
	isNum := func(x any) bool { return phpIsNumeric(x) }
	scalarOK := isNum
	what := map[int]string{1: "text", 6: "text", 0: "numeric", 2: "image", 3: "audio", 4: "video", 5: "file"}[t%10]
	if t%10 == 1 || t%10 == 6 {
		scalarOK = isText
	}
	if output && (t == 3 || t == 4) {
		// validateOutputWithFileIds wants strings for Audio and Video
		// (a slip in EShapeType that providers live with).
		scalarOK = isText
	}
	if !isListShape(t) {
		if !scalarOK(v) {
			return fmt.Errorf("Non-%s item provided for %s slot", what, name)
		}
		return nil
	}
	entries, ok := phpArrayEntries(v)
	if ok {
		for _, e := range entries {
			if !scalarOK(e.val) {
				ok = false
				break
			}
		}
	}
	if !ok {
		return fmt.Errorf("Non-%s list item provided for %s slot", what, name)
	}
	return nil
}

// validateEnum is EShapeType::validateEnum.
func validateEnum(v any, vals []taskEnumValue) error {
	for _, e := range vals {
		if s, ok := v.(string); ok && s == e.Value {
			return nil
		}
	}
	var names []string
	for _, e := range vals {
		names = append(names, e.Value)
	}
	return fmt.Errorf(`Wrong value given for Enum slot. Got %q, but expected one of the provided enum values: "%s"`, phpToString(v), strings.Join(names, `", "`))
}

// phpIsNumeric is is_numeric.
func phpIsNumeric(v any) bool {
	switch t := v.(type) {
	case float64, int, int64:
		return true
	case string:
		_, ok := phpNumericString(t)
		return ok
	}
	_, _, ok := phpNumber(v)
	return ok && v != nil
}

// claimTask is getNextScheduledTask: the possible providers are those in
// providerIDs that are the preferred provider of one of typeIDs, the
// possible types those whose preferred provider is one of them; the
// oldest scheduled task (last_updated, then id) of a possible type is
// locked (SCHEDULED to RUNNING, started_at stamped). nil when there is
// none (204).
func (s *Server) claimTask(providerIDs, typeIDs []string) (*simTask, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	avail := s.availableTypesLocked()
	preferred := func(typeID string) string {
		if at, ok := avail[typeID]; ok {
			return at.provider.id
		}
		return ""
	}
	possibleProv := map[string]bool{}
	for _, tt := range typeIDs {
		if p := preferred(tt); p != "" && containsString(providerIDs, p) {
			possibleProv[p] = true
		}
	}
	possibleType := map[string]bool{}
	for _, tt := range typeIDs {
		if possibleProv[preferred(tt)] {
			possibleType[tt] = true
		}
	}
	var best *simTask
	for _, t := range s.taskq.tasks {
		if t.status != taskScheduled || !possibleType[t.taskType] {
			continue
		}
		if best == nil || t.lastUpdated < best.lastUpdated || (t.lastUpdated == best.lastUpdated && t.id < best.id) {
			best = t
		}
	}
	if best == nil {
		return nil, ""
	}
	now := s.now().Unix()
	best.status, best.startedAt = taskRunning, &now
	return best, preferred(best.taskType)
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// setTaskProgress is Manager::setTaskProgress: a cancelled task keeps its
// state; otherwise it is running with the progress. A progress outside
// 0..1 fails (Task::setProgress throws; the controller answers 500).
func (s *Server) setTaskProgress(id int64, progress float64) (*simTask, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.taskq.tasks[id]
	if !ok {
		return nil, errTaskNotFound
	}
	if t.status == taskCancelled {
		return t, nil
	}
	if progress < 0 || progress > 1 {
		return nil, &taskError{http.StatusInternalServerError, "Internal error"}
	}
	now := s.now().Unix()
	if t.status == taskScheduled {
		t.startedAt = &now
	}
	t.status, t.progress, t.lastUpdated = taskRunning, &progress, now
	return t, nil
}

// The message Manager::setTaskResult stores when a provider's output does
// not pass the shapes.
const taskOutputInvalid = "The task was processed successfully but the provider's output doesn't pass validation against the task type's outputShape spec and/or the provider's own optionalOutputShape spec"

// setTaskResult is Manager::setTaskResult with file ids (the OCS API's
// isUsingFileIds): only a cancelled task is left alone, so a result can
// replace an earlier one. An error fails the task (the message cut to
// 1000 characters); an output is checked against the output shapes, file
// slots must name existing files, and a failed check fails the task with
// taskOutputInvalid. The user-facing message exists from 33 on.
func (s *Server) setTaskResult(id int64, output map[string]any, errMsg, userMsg *string) (*simTask, error) {
	s.mu.Lock()
	t, ok := s.taskq.tasks[id]
	if !ok {
		s.mu.Unlock()
		return nil, errTaskNotFound
	}
	if t.status == taskCancelled {
		s.mu.Unlock()
		s.logf("ncsim: A TaskProcessing %s task with id %d finished but was cancelled in the mean time. Moving on without storing result.", t.taskType, id)
		return t, nil
	}
	at, avail := s.availableTypesLocked()[t.taskType]
	s.mu.Unlock()

	// The output check reads the file tree (files.mu before s.mu).
	var checkErr error
	var kept map[string]any
	if errMsg == nil && output != nil {
		if !avail {
			checkErr = errors.New("task type not available")
		} else {
			kept, checkErr = s.checkTaskOutput(at, output)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.status == taskCancelled {
		return t, nil
	}
	now := s.now().Unix()
	one := 1.0
	switch {
	case errMsg != nil:
		msg := *errMsg
		if utf8.RuneCountInString(msg) > 1000 {
			msg = string([]rune(msg)[:1000])
		}
		t.status, t.endedAt, t.errorMessage = taskFailed, &now, msg
		if userMsg != nil && s.release().userFacingTaskErrors() {
			t.userFacingError = *userMsg
		}
		s.logf("ncsim: A TaskProcessing %s task with id %d failed with the following message: %s", t.taskType, id, msg)
	case output != nil && checkErr != nil:
		t.status, t.endedAt, t.progress, t.errorMessage = taskFailed, &now, &one, taskOutputInvalid
		s.logf("ncsim: %s: %v", taskOutputInvalid, checkErr)
	case output != nil:
		t.status, t.endedAt, t.progress, t.output = taskSuccessful, &now, &one, kept
	}
	t.lastUpdated = now
	return t, nil
}

// checkTaskOutput is validateOutputWithFileIds for the required and the
// optional output shapes, validateOutputFileIds (every file id names an
// existing file: rootFolder->getFirstNodeById, any user's) and
// removeSuperfluousArrayKeys.
func (s *Server) checkTaskOutput(at availableType, output map[string]any) (map[string]any, error) {
	p := at.provider
	kept := map[string]any{}
	for _, part := range []struct {
		spec     []taskShape
		enums    map[string][]taskEnumValue
		optional bool
	}{{at.def.Output, p.outEnums, false}, {p.optionalOut, p.optOutEnum, true}} {
		for _, sh := range part.spec {
			v, set := output[sh.Name]
			if !set || v == nil {
				if part.optional {
					continue
				}
				return nil, fmt.Errorf("Missing key: %q", sh.Name)
			}
			if err := validateShapeValue(sh.Type, v, true); err != nil {
				return nil, fmt.Errorf("Failed to validate output key %q: %s", sh.Name, err)
			}
			if vals, ok := part.enums[sh.Name]; ok {
				if err := validateEnum(v, vals); err != nil {
					return nil, fmt.Errorf("Failed to validate output key %q: %s", sh.Name, err)
				}
			}
			if isFileShape(sh.Type) {
				ids := []any{v}
				if isListShape(sh.Type) {
					ids = nil
					entries, _ := phpArrayEntries(v)
					for _, e := range entries {
						ids = append(ids, e.val)
					}
				}
				for _, id := range ids {
					if err := s.fileExists(phpToInt(id)); err != nil {
						return nil, err
					}
				}
			}
			kept[sh.Name] = v
		}
	}
	return kept, nil
}

// fileExists is validateFileId: the id names a file (not a folder) in
// someone's files.
func (s *Server) fileExists(id int64) error {
	fs := &s.files
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n, ok := fs.byID[id]
	if !ok || !live(n) {
		return fmt.Errorf("Could not find file %d", id)
	}
	if n.isDir {
		return fmt.Errorf("File with id %q is not a file", strconv.FormatInt(id, 10))
	}
	return nil
}

// userTask is Manager::getUserTask: the task, if uid scheduled it.
func (s *Server) userTaskLocked(id int64, uid string) (*simTask, bool) {
	t, ok := s.taskq.tasks[id]
	if !ok || t.userID == nil || *t.userID != uid {
		return nil, false
	}
	return t, true
}

// cancelTask is Manager::cancelTask for uid's task: a scheduled or
// running task becomes cancelled; others stay as they are.
func (s *Server) cancelTask(id int64, uid string) (*simTask, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.userTaskLocked(id, uid)
	if !ok {
		return nil, errTaskNotFound
	}
	if t.status == taskScheduled || t.status == taskRunning {
		now := s.now().Unix()
		t.status, t.endedAt, t.lastUpdated = taskCancelled, &now, now
	}
	return t, nil
}
