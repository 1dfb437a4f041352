package ncsim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// heartbeatTimeout is Nextcloud's default HTTP client timeout, which the
// heartbeat uses.
const heartbeatTimeout = 30 * time.Second

// errInvalidProgress is what AppAPIService::setAppInitProgress throws.
var errInvalidProgress = errors.New("Invalid ExApp init status progress value")

// Install runs the part of `occ app_api:app:register` that follows
// registration (§4): heartbeat until the app answers, mark it enabled, POST
// /init (404 or 501 count as done at once), wait for init progress 100 and
// the enable step it triggers (heartbeat, then PUT /enabled?enabled=1). It
// returns the error the app reported through the status endpoint, the
// enable step's error (the app is then disabled again), a timeout after
// InitTimeout, or ctx's error.
func (s *Server) Install(ctx context.Context, appID string) error {
	s.init()
	if _, ok := s.exAppRef(appID); !ok {
		return fmt.Errorf("install exapp %s: not registered", appID)
	}
	if err := s.heartbeat(ctx, appID); err != nil {
		s.setStatusError(appID, "Heartbeat check failed")
		return fmt.Errorf("install exapp %s: %w", appID, err)
	}
	s.mu.Lock()
	if a, ok := s.apps[appID]; ok {
		a.enableDone, a.enableErr = false, nil
	}
	s.mu.Unlock()
	s.dispatchInit(ctx, appID)
	return s.waitInit(ctx, appID)
}

// waitInit is `occ app_api:app:register --wait-finish`
// (ExAppService::waitInitStepFinish): it waits until init reaches 100 and
// the enable step is done, or status.error is set (by the app, or by the
// init timeout, see armInitTimeout).
func (s *Server) waitInit(ctx context.Context, appID string) error {
	for {
		s.mu.Lock()
		a, ok := s.apps[appID]
		if !ok {
			s.mu.Unlock()
			return fmt.Errorf("install exapp %s: unregistered during init", appID)
		}
		st, done, enableErr := a.status, a.enableDone, a.enableErr
		changed := s.hooks.changed
		s.mu.Unlock()
		switch {
		case st.Error != "":
			return fmt.Errorf("install exapp %s: ExApp %s initialization step failed. Error: %s", appID, appID, st.Error)
		case st.Progress == 100 && done:
			if enableErr != nil {
				return fmt.Errorf("install exapp %s: %w", appID, enableErr)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("install exapp %s: %w", appID, ctx.Err())
		case <-changed:
		}
	}
}

// armInitTimeout is ExAppInitStatusCheckJob (app_api
// lib/BackgroundJob/ExAppInitStatusCheckJob.php, the same in v32.0.0,
// v33.0.0, v34.0.3 and v35.0.0beta4): once init_start_time +
// init_timeout has passed while init is below 100 and no error is set, it
// calls setAppInitProgress(0, "ExApp <id> initialization timed out
// (<n>m)"), where n is the timeout in seconds (AppAPI's message says "m"
// for a number of seconds). That sets status.error only: the app stays
// enabled, progress stays where it was, and a 100 reported later still
// enables the app and clears the error. The real job runs every minute,
// so the error comes up to a minute late; the simulator sets it at the
// timeout. Callers hold s.mu.
func (s *Server) armInitTimeoutLocked(a *exApp) {
	start, appID := a.initStart, a.id
	d := s.initTimeout() - s.now().Sub(start)
	time.AfterFunc(max(d, 0), func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		a, ok := s.apps[appID]
		if s.closed || !ok || !a.initStart.Equal(start) || a.status.Progress == 100 || a.status.Error != "" {
			return
		}
		a.status.Error = fmt.Sprintf("ExApp %s initialization timed out (%dm)", appID, int(s.initTimeout().Seconds()))
		s.logf("ncsim: %s", a.status.Error)
		s.notifyLocked()
	})
}

// Enable runs AppAPI's enableExApp: mark enabled, heartbeat, then PUT
// /enabled?enabled=1, judged only by a JSON "error" field. If that fails
// the app is disabled again; if the heartbeat fails it stays marked enabled
// (as AppAPI leaves it).
func (s *Server) Enable(ctx context.Context, appID string) error {
	s.init()
	return s.enableExApp(ctx, appID)
}

// Disable runs AppAPI's disableExApp: PUT /enabled?enabled=0, then mark the
// app disabled whatever it answered. It returns the app's error, if any.
func (s *Server) Disable(ctx context.Context, appID string) error {
	s.init()
	ref, ok := s.exAppRef(appID)
	if !ok {
		return fmt.Errorf("disable exapp %s: not registered", appID)
	}
	appErr := s.putEnabled(ctx, ref, "0")
	s.setEnabled(appID, false)
	if appErr != nil {
		return fmt.Errorf("disable exapp %s: %w", appID, appErr)
	}
	return nil
}

func (s *Server) enableExApp(ctx context.Context, appID string) error {
	if !s.setEnabled(appID, true) {
		return fmt.Errorf("enable exapp %s: not registered", appID)
	}
	if err := s.heartbeat(ctx, appID); err != nil {
		return fmt.Errorf("enable exapp %s: %w", appID, err)
	}
	ref, ok := s.exAppRef(appID)
	if !ok {
		return fmt.Errorf("enable exapp %s: not registered", appID)
	}
	if err := s.putEnabled(ctx, ref, "1"); err != nil {
		s.setEnabled(appID, false)
		return fmt.Errorf("enable exapp %s: Failed to enable ExApp %s. Error: %w", appID, appID, err)
	}
	s.logf("ncsim: ExApp %s enabled", appID)
	return nil
}

// putEnabled sends PUT /enabled?enabled=<v> with no user. AppAPI ignores
// the status code and reads only a JSON "error" field.
func (s *Server) putEnabled(ctx context.Context, ref exAppRef, v string) error {
	resp, cancel, err := s.callExApp(ctx, ref, exAppCall{
		method: http.MethodPut, route: "/enabled?enabled=" + v, timeout: s.enabledRequestTimeout(),
	})
	if err != nil {
		return err
	}
	defer cancel()
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("read /enabled answer: %w", err)
	}
	var answer map[string]any
	if json.Unmarshal(body, &answer) == nil && !phpEmpty(answer["error"]) {
		return fmt.Errorf("%v", answer["error"])
	}
	return nil
}

// heartbeat follows AppAPIService::heartbeatExApp: GET /heartbeat without
// auth headers, success only on 200 with a JSON "status":"ok".
func (s *Server) heartbeat(ctx context.Context, appID string) error {
	attempts := s.heartbeatAttempts()
	var last string
	for i := 1; i <= attempts; i++ {
		ref, ok := s.exAppRef(appID)
		if !ok {
			return fmt.Errorf("heartbeat exapp %s: not registered", appID)
		}
		if last = s.heartbeatOnce(ctx, ref); last == "" {
			return nil
		}
		if i%10 == 0 {
			s.logf("ncsim: failed heartbeat on %s for %d times: %s", ref.baseURL, i, last)
		}
		if i == attempts {
			break
		}
		t := time.NewTimer(s.heartbeatInterval())
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("heartbeat exapp %s: %w", appID, ctx.Err())
		case <-t.C:
		}
	}
	return fmt.Errorf("heartbeat exapp %s: failed %d times, last: %s", appID, attempts, last)
}

// heartbeatOnce returns "" on success or why it failed.
func (s *Server) heartbeatOnce(ctx context.Context, ref exAppRef) string {
	ctx, cancel := context.WithTimeout(ctx, heartbeatTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ref.baseURL+"/heartbeat", nil)
	if err != nil {
		return err.Error()
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/json")
	s.setUserAgent(req.Header)
	resp, err := s.client.Do(req)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Sprintf("status %d", resp.StatusCode)
	}
	var answer map[string]any
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&answer); err != nil {
		return "answer is not a JSON object"
	}
	if answer["status"] != "ok" {
		return fmt.Sprintf("status field %v", answer["status"])
	}
	return ""
}

// dispatchInit follows AppAPIService::dispatchExAppInitInternal.
func (s *Server) dispatchInit(ctx context.Context, appID string) {
	_ = s.setInitProgress(ctx, appID, 0, "")
	s.setEnabled(appID, true)
	ref, ok := s.exAppRef(appID)
	if !ok {
		return
	}
	resp, cancel, err := s.callExApp(ctx, ref, exAppCall{
		method: http.MethodPost, route: "/init", timeout: s.initRequestTimeout(),
	})
	if err != nil {
		_ = s.setInitProgress(ctx, appID, 0, err.Error())
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	cancel()
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusNotImplemented:
		_ = s.setInitProgress(ctx, appID, 100, "")
	case resp.StatusCode >= 400:
		kind := "Client"
		if resp.StatusCode >= 500 {
			kind = "Server"
		}
		msg := fmt.Sprintf("%s error: `POST %s/init` resulted in a `%s` response", kind, ref.baseURL, resp.Status)
		_ = s.setInitProgress(ctx, appID, 0, msg)
	}
}

// setInitProgress follows AppAPIService::setAppInitProgress. Progress 100
// runs the enable step before it returns, as AppAPI does inside the
// ExApp's status request.
func (s *Server) setInitProgress(ctx context.Context, appID string, progress int, errMsg string) error {
	if progress < 0 || progress > 100 {
		return errInvalidProgress
	}
	s.mu.Lock()
	a, ok := s.apps[appID]
	if !ok {
		s.mu.Unlock()
		return fmt.Errorf("set init progress %s: not registered", appID)
	}
	st := &a.status
	if progress != 0 && st.Progress == 100 {
		s.mu.Unlock()
		return nil
	}
	if errMsg != "" {
		s.logf("ncsim: ExApp %s initialization failed. Error: %s", appID, errMsg)
		st.Error = errMsg
	} else {
		if progress == 0 {
			st.Action = "init"
			a.initStart = s.now()
			st.Error = ""
			s.armInitTimeoutLocked(a)
		}
		st.Progress = progress
	}
	if progress == 100 {
		st.Action, st.Type = "", ""
		a.enableDone, a.enableErr = false, nil
	}
	s.notifyLocked()
	s.mu.Unlock()
	if progress == 100 {
		err := s.enableExApp(ctx, appID)
		if err != nil {
			s.logf("ncsim: %v", err)
		}
		s.mu.Lock()
		if a, ok := s.apps[appID]; ok {
			a.enableDone, a.enableErr = true, err
		}
		s.notifyLocked()
		s.mu.Unlock()
	}
	return nil
}

// setEnabled follows enableExAppInternal (which also clears status.error)
// and disableExAppInternal. It reports whether the app exists.
func (s *Server) setEnabled(appID string, enabled bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.apps[appID]
	if !ok {
		return false
	}
	a.enabled = enabled
	if enabled {
		a.status.Error = ""
	}
	s.notifyLocked()
	return true
}

func (s *Server) setStatusError(appID, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.apps[appID]; ok {
		a.status.Error = msg
		s.notifyLocked()
	}
}

// notifyLocked wakes everyone waiting for an app state change.
func (s *Server) notifyLocked() {
	close(s.hooks.changed)
	s.hooks.changed = make(chan struct{})
}

// MarkEnabled sets an app's enabled flag without calling it, as AppAPI
// does in the database before POST /init, so the app's own calls to
// Nextcloud are accepted. It panics if the app is unknown.
func (s *Server) MarkEnabled(appID string) {
	s.init()
	if !s.setEnabled(appID, true) {
		panic("ncsim: no ExApp " + appID)
	}
}
