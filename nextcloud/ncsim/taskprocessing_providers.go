package ncsim

import (
	"errors"
	"fmt"
	"math"
	"net/http"
)

// handleTaskProviderRegister serves POST .../api/v1/ai_provider/
// task_processing {provider, customTaskType} (TaskProcessingController::
// registerProvider): a provider AppAPI refuses gets 400 with data [] and
// the reason in the log only.
func (s *Server) handleTaskProviderRegister(w http.ResponseWriter, r *http.Request, p principal) {
	params, err := readParams(r)
	if err != nil {
		writeOCS(w, r, http.StatusBadRequest, err.Error(), nil)
		return
	}
	raw, ok := params["provider"].(map[string]any)
	if !ok {
		// array $provider is required: PHP's TypeError is a 500.
		writeOCS(w, r, ocsServerError, "Internal Server Error", nil)
		return
	}
	var custom map[string]any
	if c, ok := params["customTaskType"]; ok && c != nil {
		if custom, ok = c.(map[string]any); !ok {
			writeOCS(w, r, ocsServerError, "Internal Server Error", nil)
			return
		}
	}
	prov, err := parseTaskProvider(p.appID, raw, custom)
	if err != nil {
		s.logf("ncsim: Failed to register the ExApp %q TaskProcessingProvider %q. Error: %v", p.appID, raw["name"], err)
		writeOCS(w, r, http.StatusBadRequest, "", nil)
		return
	}
	prov.registered = s.now()
	s.mu.Lock()
	i := s.taskProviderIndexLocked(p.appID, prov.id)
	if i >= 0 {
		s.taskq.providers[i] = prov // insertOrUpdate keeps the row
	} else {
		s.taskq.providers = append(s.taskq.providers, prov)
	}
	s.mu.Unlock()
	s.logf("ncsim: %s registered task processing provider %s for %s", p.appID, prov.id, prov.taskType)
	writeOCS(w, r, http.StatusOK, "", nil)
}

// handleTaskProviderUnregister serves DELETE ...task_processing?name=:
// 404 with data [] when the app has no such provider.
func (s *Server) handleTaskProviderUnregister(w http.ResponseWriter, r *http.Request, p principal) {
	name, ok := providerName(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	i := s.taskProviderIndexLocked(p.appID, name)
	if i >= 0 {
		s.taskq.providers = append(s.taskq.providers[:i:i], s.taskq.providers[i+1:]...)
	}
	s.mu.Unlock()
	if i < 0 {
		writeOCS(w, r, http.StatusNotFound, "", nil)
		return
	}
	writeOCS(w, r, http.StatusOK, "", nil)
}

// providerName reads the name parameter of an unregister or get request,
// answering 400 when the request cannot be read.
func providerName(w http.ResponseWriter, r *http.Request) (string, bool) {
	params, err := readParams(r)
	if err != nil {
		writeOCS(w, r, http.StatusBadRequest, err.Error(), nil)
		return "", false
	}
	name, _ := paramString(params, "name")
	return name, true
}

func (s *Server) taskProviderIndexLocked(appID, id string) int {
	for i, p := range s.taskq.providers {
		if p.appID == appID && p.id == id {
			return i
		}
	}
	return -1
}

// dropTaskProvidersLocked removes appID's providers
// (unregisterExAppTaskProcessingProviders, on unregistering the app).
func (s *Server) dropTaskProvidersLocked(appID string) {
	kept := s.taskq.providers[:0]
	for _, p := range s.taskq.providers {
		if p.appID != appID {
			kept = append(kept, p)
		}
	}
	s.taskq.providers = kept
}

// parseTaskProvider is registerTaskProcessingProvider's checks
// (validateTaskProcessingProvider and the custom task type's id), then
// what getAnonymousExAppProvider and getAnonymousTaskType read.
func parseTaskProvider(appID string, raw, custom map[string]any) (*taskProvider, error) {
	p := &taskProvider{appID: appID, raw: raw, rawCustom: custom}
	var ok bool
	if custom != nil {
		if raw["task_type"] != custom["id"] {
			return nil, errors.New("Task type and custom task type must be the same if custom task type is provided")
		}
	} else if raw["task_type"] == nil {
		return nil, errors.New("Task type must be provided if custom task type is not provided")
	}
	if p.id, ok = raw["id"].(string); !ok {
		return nil, errors.New(`"id" key must be a string`)
	}
	if p.name, ok = raw["name"].(string); !ok {
		return nil, errors.New(`"name" key must be a string`)
	}
	if p.taskType, ok = raw["task_type"].(string); !ok {
		return nil, errors.New(`"task_type" key must be a string`)
	}
	rt, ok := raw["expected_runtime"].(float64)
	if !ok || rt != math.Trunc(rt) {
		return nil, errors.New(`"expected_runtime" key must be an integer`)
	}
	p.expectedRuntime = int(rt)
	var err error
	if p.optionalIn, err = parseShapes(raw["optional_input_shape"]); err != nil {
		return nil, errors.New(`"optional_input_shape" should be an array and must have "name", "description" and "shape_type" keys`)
	}
	if p.optionalOut, err = parseShapes(raw["optional_output_shape"]); err != nil {
		return nil, errors.New(`"optional_output_shape" should be an array and must have "name", "description" and "shape_type" keys`)
	}
	enums := []struct {
		key string
		dst *map[string][]taskEnumValue
	}{{"input_shape_enum_values", &p.inEnums}, {"optional_input_shape_enum_values", &p.optInEnums},
		{"output_shape_enum_values", &p.outEnums}, {"optional_output_shape_enum_values", &p.optOutEnum}}
	for _, e := range enums[:2] {
		if *e.dst, err = parseEnumValues(raw[e.key]); err != nil {
			return nil, fmt.Errorf(`"%s" should be an array and must have "name" and "value" keys`, e.key)
		}
	}
	if p.inDefaults, ok = phpArrayValue(raw["input_shape_defaults"]); !ok {
		return nil, errors.New(`"input_shape_defaults" key must be an array`)
	}
	if p.optInDefaults, ok = phpArrayValue(raw["optional_input_shape_defaults"]); !ok {
		return nil, errors.New(`"optional_input_shape_defaults" key must be an array`)
	}
	for _, e := range enums[2:] {
		if *e.dst, err = parseEnumValues(raw[e.key]); err != nil {
			return nil, fmt.Errorf(`"%s" should be an array and must have "name" and "value" keys`, e.key)
		}
	}
	if custom != nil {
		// AppAPI stores the custom type unchecked; a broken one fails later,
		// when the providers are listed, and is then left out (the
		// listener catches it).
		c := &customTaskType{}
		c.ID, _ = custom["id"].(string)
		c.Name, _ = custom["name"].(string)
		c.Description, _ = custom["description"].(string)
		in, errIn := parseShapes(custom["input_shape"])
		out, errOut := parseShapes(custom["output_shape"])
		if errIn == nil && errOut == nil {
			c.Input, c.Output = in, out
			p.custom = c
		}
	}
	return p, nil
}

// parseShapes reads a list of {name, description, shape_type}; the shape
// types must be EShapeType values (EShapeType::from).
func parseShapes(v any) ([]taskShape, error) {
	entries, ok := phpArrayEntries(v)
	if !ok {
		return nil, errors.New("not an array")
	}
	var out []taskShape
	for _, e := range entries {
		m, ok := e.val.(map[string]any)
		if !ok {
			return nil, errors.New("element is not an array")
		}
		name, ok1 := m["name"].(string)
		desc, ok2 := m["description"].(string)
		t, ok3 := m["shape_type"].(float64)
		if !ok1 || !ok2 || !ok3 {
			return nil, errors.New("missing keys")
		}
		if _, known := shapeTypeNames[int(t)]; !known || t != math.Trunc(t) {
			return nil, fmt.Errorf("%v is not a valid backing value for enum EShapeType", t)
		}
		out = append(out, taskShape{Name: name, Description: desc, Type: int(t)})
	}
	return out, nil
}

// parseEnumValues reads {slot: [{name, value}, ...]} (everyElementHasKeys).
func parseEnumValues(v any) (map[string][]taskEnumValue, error) {
	entries, ok := phpArrayEntries(v)
	if !ok {
		return nil, errors.New("not an array")
	}
	out := map[string][]taskEnumValue{}
	for _, e := range entries {
		if e.isInt {
			return nil, errors.New("slot names must be strings")
		}
		vals, ok := phpArrayEntries(e.val)
		if !ok {
			return nil, errors.New("values are not an array")
		}
		for _, ve := range vals {
			m, ok := ve.val.(map[string]any)
			if !ok {
				return nil, errors.New("value is not an array")
			}
			name, ok1 := m["name"].(string)
			value, ok2 := m["value"].(string)
			if !ok1 || !ok2 {
				return nil, errors.New("missing name or value")
			}
			out[e.key] = append(out[e.key], taskEnumValue{Name: name, Value: value})
		}
	}
	return out, nil
}

// phpArrayValue reads a PHP array of defaults as a map ([] is empty).
func phpArrayValue(v any) (map[string]any, bool) {
	entries, ok := phpArrayEntries(v)
	if !ok {
		return nil, false
	}
	out := map[string]any{}
	for _, e := range entries {
		out[e.key] = e.val
	}
	return out, true
}
