package ncsim

import (
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"time"
)

// Task Processing: ExApp providers registered through AppAPI, and the
// server's task queue that the Assistant schedules into and providers take
// tasks from. It follows
//
//   - app_api lib/Controller/TaskProcessingController.php and
//     lib/Service/ProvidersAI/TaskProcessingService.php (v32.0.0 to
//     v35.0.0beta4: registration unchanged; the provider became an
//     ITriggerableProvider in v33.0.0, commits 01b67f29 and b43d5f4d),
//     lib/Listener/GetTaskProcessingProvidersListener.php (a provider's
//     custom task type is offered with it) and
//     lib/Db/TaskProcessing/TaskProcessingProviderMapper.php findAllEnabled
//     (only enabled apps' providers count);
//   - server core/Controller/TaskProcessingApiController.php,
//     lib/private/TaskProcessing/Manager.php, Db/TaskMapper.php,
//     lib/public/TaskProcessing/{Task,EShapeType,ShapeDescriptor}.php and
//     ITriggerableProvider.php (@since 33.0.0; server PR #55741);
//     userFacingErrorMessage since 33 (server PR #55713, #57491).
//
// docs/nextcloud-compatibility.md pins the versions read.

// Task statuses (OCP\TaskProcessing\Task::STATUS_*).
const (
	taskUnknown    = 0
	taskScheduled  = 1
	taskRunning    = 2
	taskSuccessful = 3
	taskFailed     = 4
	taskCancelled  = 5
)

// taskStatusName is Task::statusToString.
func taskStatusName(st int) string {
	switch st {
	case taskCancelled:
		return "STATUS_CANCELLED"
	case taskFailed:
		return "STATUS_FAILED"
	case taskSuccessful:
		return "STATUS_SUCCESSFUL"
	case taskRunning:
		return "STATUS_RUNNING"
	case taskScheduled:
		return "STATUS_SCHEDULED"
	}
	return "STATUS_UNKNOWN"
}

// Shape types (OCP\TaskProcessing\EShapeType), and their names as
// ShapeDescriptor::jsonSerialize writes them.
var shapeTypeNames = map[int]string{0: "Number", 1: "Text", 2: "Image", 3: "Audio", 4: "Video", 5: "File", 6: "Enum",
	10: "ListOfNumbers", 11: "ListOfTexts", 12: "ListOfImages", 13: "ListOfAudios", 14: "ListOfVideos", 15: "ListOfFiles"}

const shapeEnum = 6

// isFileShape is EShapeType::isFileType: File, Image, Audio, Video and
// their lists (getScalarType is value % 10).
func isFileShape(t int) bool {
	s := t % 10
	return s == 2 || s == 3 || s == 4 || s == 5
}

// isListShape reports a list type (10 and up).
func isListShape(t int) bool { return t >= 10 }

// taskShape is one slot (ShapeDescriptor), under its name.
type taskShape struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Type        int    `json:"shape_type"`
}

// taskEnumValue is a ShapeEnumValue.
type taskEnumValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// customTaskType is a custom_task_type an ExApp registered with a provider.
type customTaskType struct {
	ID, Name, Description string
	Input, Output         []taskShape
}

// taskProvider is an ExApp's registered provider (ex_task_processing row).
type taskProvider struct {
	appID                string
	id, name, taskType   string
	expectedRuntime      int
	optionalIn           []taskShape
	optionalOut          []taskShape
	inEnums, optInEnums  map[string][]taskEnumValue
	outEnums, optOutEnum map[string][]taskEnumValue
	inDefaults           map[string]any
	optInDefaults        map[string]any
	custom               *customTaskType
	raw                  map[string]any // the provider array as registered
	rawCustom            map[string]any // the custom task type as registered, or nil
	registered           time.Time
}

// simTask is a task in the queue (oc_taskprocessing_tasks).
type simTask struct {
	id                   int64
	taskType             string
	appID                string
	userID               *string
	customID             string
	input                map[string]any
	output               map[string]any // nil until successful
	status               int
	progress             *float64
	errorMessage         string
	userFacingError      string
	scheduledAt          int64
	startedAt, endedAt   *int64
	completionExpectedAt int64
	lastUpdated          int64
}

// taskState is the Task Processing side. Guarded by Server.mu.
type taskState struct {
	providers []*taskProvider // registration order
	tasks     map[int64]*simTask
	nextID    int64
	scheduled map[string][]time.Time // uid -> recent schedule calls (UserRateLimit)
	triggers  []TaskTrigger
}

// TaskProviderInfo describes a provider an ExApp registered.
type TaskProviderInfo struct {
	AppID, ID, Name, TaskType string
	ExpectedRuntime           int
	// CustomTaskType is the id of the task type registered with it, "" if
	// none.
	CustomTaskType string
	// Provider and CustomTaskTypeJSON are the arrays as AppAPI stored them.
	Provider           json.RawMessage
	CustomTaskTypeJSON json.RawMessage
}

// TaskInfo is a task as the server holds it.
type TaskInfo struct {
	ID       int64
	Type     string
	AppID    string
	UserID   string // "" for a task without a user
	CustomID string
	Status   string // "STATUS_SCHEDULED" ...
	Input    map[string]any
	Output   map[string]any
	Progress float64
	// ErrorMessage is the admin-facing error, UserFacingError the one the
	// Assistant shows (Nextcloud 33 and later).
	ErrorMessage    string
	UserFacingError string
	ScheduledAt     time.Time
	StartedAt       time.Time // zero until claimed
	EndedAt         time.Time // zero until it ends
}

// TaskTrigger is one /trigger call AppAPI made to an ExApp for a provider.
type TaskTrigger struct {
	AppID, ProviderID string
	Status            int   // the ExApp's HTTP status; 0 when the call failed
	Err               error // transport error or timeout
	Time              time.Time
}

func (s *Server) initTasks() {
	s.taskq.tasks = map[int64]*simTask{}
	s.taskq.scheduled = map[string][]time.Time{}
}

// routesTasks lists AppAPI's provider registration and the server's Task
// Processing OCS API (root /taskprocessing, under /ocs/v1.php and
// /ocs/v2.php).
func (s *Server) routesTasks(mux *http.ServeMux) {
	const reg = "/apps/app_api/api/v1/ai_provider/task_processing"
	api := s.appAPIAuth
	ocsRoute(mux, "POST", reg, api(s.handleTaskProviderRegister))
	ocsRoute(mux, "DELETE", reg, api(s.handleTaskProviderUnregister))

	const tp = "/taskprocessing"
	ocsRoute(mux, "GET", tp+"/tasktypes", s.taskUser(s.handleTaskTypes))
	ocsRoute(mux, "POST", tp+"/schedule", s.taskUser(s.handleTaskSchedule))
	ocsRoute(mux, "GET", tp+"/task/{id}", s.taskUser(s.handleTaskGet))
	ocsRoute(mux, "POST", tp+"/tasks/{taskId}/cancel", s.taskUser(s.handleTaskCancel))
	ocsRoute(mux, "GET", tp+"/tasks_provider/next", s.taskExApp(s.handleTaskNext))
	ocsRoute(mux, "POST", tp+"/tasks_provider/{taskId}/progress", s.taskExApp(s.handleTaskProgress))
	ocsRoute(mux, "POST", tp+"/tasks_provider/{taskId}/result", s.taskExApp(s.handleTaskResult))
	s.routesAssistant(mux)
}

// TaskProviders returns the providers appID registered ("" for every
// app's), in registration order.
func (s *Server) TaskProviders(appID string) []TaskProviderInfo {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []TaskProviderInfo
	for _, p := range s.taskq.providers {
		if appID != "" && p.appID != appID {
			continue
		}
		info := TaskProviderInfo{AppID: p.appID, ID: p.id, Name: p.name, TaskType: p.taskType, ExpectedRuntime: p.expectedRuntime}
		info.Provider, _ = json.Marshal(p.raw)
		if p.custom != nil {
			info.CustomTaskType = p.custom.ID
			info.CustomTaskTypeJSON, _ = json.Marshal(p.rawCustom)
		}
		out = append(out, info)
	}
	return out
}

// Task returns the task with id.
func (s *Server) Task(id int64) (TaskInfo, bool) {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.taskq.tasks[id]
	if !ok {
		return TaskInfo{}, false
	}
	return t.info(), true
}

// TaskTriggers returns the /trigger calls made so far, in order.
func (s *Server) TaskTriggers() []TaskTrigger {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.taskq.triggers)
}

func (t *simTask) info() TaskInfo {
	ti := TaskInfo{ID: t.id, Type: t.taskType, AppID: t.appID, CustomID: t.customID, Status: taskStatusName(t.status),
		Input: cloneMap(t.input), Output: cloneMap(t.output), ErrorMessage: t.errorMessage, UserFacingError: t.userFacingError,
		ScheduledAt: time.Unix(t.scheduledAt, 0)}
	if t.userID != nil {
		ti.UserID = *t.userID
	}
	if t.progress != nil {
		ti.Progress = *t.progress
	}
	if t.startedAt != nil {
		ti.StartedAt = time.Unix(*t.startedAt, 0)
	}
	if t.endedAt != nil {
		ti.EndedAt = time.Unix(*t.endedAt, 0)
	}
	return ti
}

func cloneMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	raw, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return out
}

// json is Task::jsonSerialize; userFacingErrorMessage is serialized from
// Nextcloud 33 on (nc_py_api PR #450 and context_agent PR #237 read it
// there; the admin-facing errorMessage is never serialized).
func (t *simTask) json(rel release) map[string]any {
	out := map[string]any{
		"id": t.id, "type": t.taskType, "lastUpdated": t.lastUpdated, "status": taskStatusName(t.status),
		"userId": t.userID, "appId": t.appID, "input": phpArray(t.input), "output": nil, "customId": t.customID,
		"completionExpectedAt": t.completionExpectedAt, "progress": t.progress,
		"scheduledAt": t.scheduledAt, "startedAt": t.startedAt, "endedAt": t.endedAt,
	}
	if t.output != nil {
		out["output"] = phpArray(t.output)
	}
	if rel.userFacingTaskErrors() {
		var msg any
		if t.userFacingError != "" {
			msg = t.userFacingError
		}
		out["userFacingErrorMessage"] = msg
	}
	return out
}

// phpArray is how json_encode writes an array that may be empty: [] then.
func phpArray(m map[string]any) any {
	if len(m) == 0 {
		return []any{}
	}
	return m
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
