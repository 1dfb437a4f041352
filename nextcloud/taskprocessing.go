package nextcloud

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	hs "github.com/hybrid-search/hybridsearch"
)

// Task Processing, as an ExApp provider sees it. AppAPI registers an
// ExApp's providers and custom task types (app_api
// lib/Controller/TaskProcessingController.php, routes
// /api/v1/ai_provider/task_processing, lib/Service/ProvidersAI/
// TaskProcessingService.php, the same in v32.0.0 to v35.0.0beta4 but for
// the trigger, since v33.0.0: POST /trigger?providerId=<id> to the ExApp,
// commits 01b67f29 and b43d5f4d). The server hands tasks out and takes
// results through its OCS API (core/Controller/
// TaskProcessingApiController.php: tasks_provider/next, progress, result,
// all #[ExAppRequired]). docs/nextcloud-compatibility.md lists the facts.

// ShapeType is the type of a task's input or output slot
// (OCP\TaskProcessing\EShapeType; Enum since 30).
type ShapeType int

// The shape types. File slots hold Nextcloud file ids.
const (
	ShapeNumber        ShapeType = 0
	ShapeText          ShapeType = 1
	ShapeImage         ShapeType = 2
	ShapeAudio         ShapeType = 3
	ShapeVideo         ShapeType = 4
	ShapeFile          ShapeType = 5
	ShapeEnum          ShapeType = 6
	ShapeListOfNumbers ShapeType = 10
	ShapeListOfTexts   ShapeType = 11
	ShapeListOfImages  ShapeType = 12
	ShapeListOfAudios  ShapeType = 13
	ShapeListOfVideos  ShapeType = 14
	ShapeListOfFiles   ShapeType = 15
)

// Shape is one slot of a task type. AppAPI uses Name both as the slot's
// key in a task's input or output and as the label the Assistant shows
// (getAnonymousTaskType: new ShapeDescriptor($shape['name'], ...) under
// the key $shape['name']).
type Shape struct {
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Type        ShapeType `json:"shape_type"`
}

// EnumValue is one choice of an Enum slot (OCP\TaskProcessing\ShapeEnumValue).
type EnumValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// TaskType is a task type of the app's own (AppAPI's custom_task_type).
type TaskType struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Description string  `json:"description"`
	InputShape  []Shape `json:"input_shape"`
	OutputShape []Shape `json:"output_shape"`
}

// TaskProvider is a Task Processing provider as AppAPI registers it: ID
// names it in the admin's AI settings and in /trigger, Name is its
// display name. CustomTaskType, if non-nil, is registered with it; its ID
// must equal TaskType.
type TaskProvider struct {
	ID              string
	Name            string
	TaskType        string
	ExpectedRuntime int // seconds; the Assistant shows the expected end
	// Optional slots beyond the task type's, their enum values and
	// defaults (keyed by slot name).
	OptionalInputShape            []Shape
	OptionalOutputShape           []Shape
	InputShapeEnumValues          map[string][]EnumValue
	InputShapeDefaults            map[string]any
	OptionalInputShapeEnumValues  map[string][]EnumValue
	OptionalInputShapeDefaults    map[string]any
	OutputShapeEnumValues         map[string][]EnumValue
	OptionalOutputShapeEnumValues map[string][]EnumValue
	CustomTaskType                *TaskType
}

// wire is the provider array registerProvider takes. AppAPI checks every
// key (validateTaskProcessingProvider): lists must be lists and maps
// arrays, never null, so empty ones are sent as [] and {}.
func (p TaskProvider) wire() map[string]any {
	shapes := func(s []Shape) []Shape {
		if s == nil {
			return []Shape{}
		}
		return s
	}
	enums := func(m map[string][]EnumValue) map[string][]EnumValue {
		if m == nil {
			return map[string][]EnumValue{}
		}
		return m
	}
	defaults := func(m map[string]any) map[string]any {
		if m == nil {
			return map[string]any{}
		}
		return m
	}
	return map[string]any{
		"id": p.ID, "name": p.Name, "task_type": p.TaskType, "expected_runtime": p.ExpectedRuntime,
		"optional_input_shape":              shapes(p.OptionalInputShape),
		"optional_output_shape":             shapes(p.OptionalOutputShape),
		"input_shape_enum_values":           enums(p.InputShapeEnumValues),
		"input_shape_defaults":              defaults(p.InputShapeDefaults),
		"optional_input_shape_enum_values":  enums(p.OptionalInputShapeEnumValues),
		"optional_input_shape_defaults":     defaults(p.OptionalInputShapeDefaults),
		"output_shape_enum_values":          enums(p.OutputShapeEnumValues),
		"optional_output_shape_enum_values": enums(p.OptionalOutputShapeEnumValues),
	}
}

// Task statuses as the OCS API writes them (Task::statusToString).
const (
	TaskUnknown    = "STATUS_UNKNOWN"
	TaskScheduled  = "STATUS_SCHEDULED"
	TaskRunning    = "STATUS_RUNNING"
	TaskSuccessful = "STATUS_SUCCESSFUL"
	TaskFailed     = "STATUS_FAILED"
	TaskCancelled  = "STATUS_CANCELLED"
)

// Task is a Task Processing task (Task::jsonSerialize).
type Task struct {
	ID     int64
	Type   string
	Status string
	// User is the user who scheduled the task; "" for a task without one
	// (userId null).
	User     hs.UserID
	AppID    string
	CustomID string
	Input    map[string]any
	Output   map[string]any
	Progress float64
}

// taskJSON is Task on the wire; input and output are PHP arrays, so an
// empty one is [] rather than {}.
type taskJSON struct {
	ID       int64           `json:"id"`
	Type     string          `json:"type"`
	Status   string          `json:"status"`
	UserID   *string         `json:"userId"`
	AppID    string          `json:"appId"`
	CustomID *string         `json:"customId"`
	Input    json.RawMessage `json:"input"`
	Output   json.RawMessage `json:"output"`
	Progress *float64        `json:"progress"`
}

func (t taskJSON) task() (Task, error) {
	out := Task{ID: t.ID, Type: t.Type, Status: t.Status, AppID: t.AppID}
	if t.UserID != nil {
		out.User = hs.UserID(*t.UserID)
	}
	if t.CustomID != nil {
		out.CustomID = *t.CustomID
	}
	if t.Progress != nil {
		out.Progress = *t.Progress
	}
	var err error
	if out.Input, err = phpObject(t.Input); err != nil {
		return out, err
	}
	out.Output, err = phpObject(t.Output)
	return out, err
}

// phpObject decodes a PHP array sent as JSON: an object, or [] / null
// when empty.
func phpObject(raw json.RawMessage) (map[string]any, error) {
	if isEmptyData(raw) {
		return map[string]any{}, nil
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}

// taskOCS is the path of the server's Task Processing OCS API.
const taskOCS = "/ocs/v2.php/taskprocessing"

// RegisterTaskProvider registers p, and its custom task type if any, for
// the app, replacing one of the same ID (POST .../api/v1/ai_provider/
// task_processing {provider, customTaskType}). AppAPI answers 400 when it
// refuses the definition (the reason is only in its log). Made with no
// user.
func (c *Client) RegisterTaskProvider(ctx context.Context, p TaskProvider) error {
	if p.ID == "" || p.Name == "" || p.TaskType == "" {
		return errorf(hs.EINVALID, "register task provider: an id, a name and a task type are required")
	}
	if p.CustomTaskType != nil && p.CustomTaskType.ID != p.TaskType {
		return errorf(hs.EINVALID, "register task provider %s: the custom task type's id must be its task type", p.ID)
	}
	body := map[string]any{"provider": p.wire(), "customTaskType": nil}
	if t := p.CustomTaskType; t != nil {
		in, out := t.InputShape, t.OutputShape
		if in == nil {
			in = []Shape{}
		}
		if out == nil {
			out = []Shape{}
		}
		body["customTaskType"] = map[string]any{"id": t.ID, "name": t.Name, "description": t.Description,
			"input_shape": in, "output_shape": out}
	}
	return c.ocs(ctx, "", http.MethodPost, appAPI+"/api/v1/ai_provider/task_processing", nil, body, nil)
}

// UnregisterTaskProvider removes the app's provider id (DELETE ...
// task_processing?name=id); ENOTFOUND when there is none.
func (c *Client) UnregisterTaskProvider(ctx context.Context, id string) error {
	return c.ocs(ctx, "", http.MethodDelete, appAPI+"/api/v1/ai_provider/task_processing", url.Values{"name": {id}}, nil, nil)
}

// NextTask claims the oldest scheduled task of taskTypes whose preferred
// provider is one of providers (GET tasks_provider/next): the server marks
// it running and returns it with the provider's id. nil (and no error)
// means there is none: 204, or no task type whose preferred provider is
// one of these (an admin chose another provider, or the app is not
// registered).
func (c *Client) NextTask(ctx context.Context, providers, taskTypes []string) (*Task, string, error) {
	q := url.Values{"format": {"json"}, "providerIds[]": providers, "taskTypeIds[]": taskTypes}
	r := &request{method: http.MethodGet, path: taskOCS + "/tasks_provider/next", query: q,
		header: http.Header{"Accept": {"application/json"}}}
	status, _, b, err := c.call(ctx, r)
	if err != nil {
		return nil, "", err
	}
	if status == http.StatusNoContent {
		return nil, "", nil
	}
	var data struct {
		Task     taskJSON `json:"task"`
		Provider struct {
			Name string `json:"name"`
		} `json:"provider"`
	}
	if err := decodeOCS(r.op(), status, b, &data); err != nil {
		return nil, "", err
	}
	t, err := data.Task.task()
	if err != nil {
		return nil, "", errorf(hs.EINTERNAL, "%s: decode task: %w", r.op(), err)
	}
	return &t, data.Provider.Name, nil
}

// SetTaskProgress reports progress (0..1) of a running task and returns
// the task as it is now: a task the user cancelled comes back
// TaskCancelled and keeps that status (Manager::setTaskProgress).
func (c *Client) SetTaskProgress(ctx context.Context, id int64, progress float64) (Task, error) {
	return c.taskCall(ctx, id, "progress", map[string]any{"progress": progress})
}

// SetTaskResult posts a task's output (file slots hold file ids, which
// the server checks exist) and returns the task as it is now: successful;
// failed when the output does not pass the task type's shapes (the server
// keeps it then); or cancelled, when the user withdrew it first, which
// the result does not change.
func (c *Client) SetTaskResult(ctx context.Context, id int64, output map[string]any) (Task, error) {
	return c.taskCall(ctx, id, "result", map[string]any{"output": output})
}

// FailTask marks a task failed with message, which the admin sees in the
// log (the OCS API never shows it to users), and userMessage, which the
// Assistant shows the user on Nextcloud 33 and later (earlier servers
// ignore it and show a generic failure).
func (c *Client) FailTask(ctx context.Context, id int64, message, userMessage string) (Task, error) {
	return c.taskCall(ctx, id, "result", map[string]any{"errorMessage": message, "userFacingErrorMessage": userMessage})
}

func (c *Client) taskCall(ctx context.Context, id int64, what string, body any) (Task, error) {
	var data struct {
		Task taskJSON `json:"task"`
	}
	path := taskOCS + "/tasks_provider/" + strconv.FormatInt(id, 10) + "/" + what
	if err := c.ocs(ctx, "", http.MethodPost, path, nil, body, &data); err != nil {
		return Task{}, err
	}
	t, err := data.Task.task()
	if err != nil {
		return Task{}, errorf(hs.EINTERNAL, "POST %s: decode task: %w", path, err)
	}
	return t, nil
}
