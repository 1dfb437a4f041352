package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hybrid-search/hybridsearch/appinfo"
	"github.com/hybrid-search/hybridsearch/nextcloud/appapi"
)

// apiClient calls the running app's API the way AppAPI does: signed with
// the app's secret, acting as a user. The CLI commands use it; they run
// next to the app (e.g. "docker exec nc_app_hybrid_search hybridsearch
// status --user admin") and read the same environment.
type apiClient struct {
	base   string
	appID  string
	ver    string
	secret string
	http   *http.Client
}

// newAPIClient reads APP_ID, APP_SECRET, APP_VERSION, APP_HOST, APP_PORT
// (or HP_SHARED_KEY + HP_EXAPP_SOCK) through getenv.
func newAPIClient(getenv func(string) string) (*apiClient, error) {
	c := &apiClient{appID: getenv("APP_ID"), ver: getenv("APP_VERSION"), secret: getenv("APP_SECRET")}
	for name, v := range map[string]string{"APP_ID": c.appID, "APP_SECRET": c.secret} {
		if v == "" {
			return nil, fmt.Errorf("config: %s is not set: the command talks to the running app and needs its environment", name)
		}
	}
	if c.ver == "" {
		c.ver = appinfo.Version()
	}
	transport := &http.Transport{}
	if getenv("HP_SHARED_KEY") != "" {
		sock := getenv("HP_EXAPP_SOCK")
		if sock == "" {
			sock = "/tmp/exapp.sock"
		}
		transport.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		}
		c.base = "http://exapp"
	} else {
		host, port := getenv("APP_HOST"), getenv("APP_PORT")
		if host == "" || host == "0.0.0.0" {
			host = "127.0.0.1"
		}
		if _, err := strconv.Atoi(port); err != nil {
			return nil, fmt.Errorf("config: APP_PORT=%q: expected the port the app listens on", port)
		}
		c.base = "http://" + net.JoinHostPort(host, port)
	}
	c.http = &http.Client{Transport: transport, Timeout: 60 * time.Second}
	return c, nil
}

// do calls method path as user with an optional JSON body and decodes a
// JSON answer into out. Error answers become errors with the app's message.
func (c *apiClient) do(ctx context.Context, method, path, user string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("EX-APP-ID", c.appID)
	req.Header.Set("EX-APP-VERSION", c.ver)
	req.Header.Set(appapi.AuthHeader, appapi.EncodeAuth(user, c.secret))
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("the app does not answer at %s: %w", c.base, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		e := &apiError{Method: method, Path: path, Status: resp.StatusCode}
		var body struct{ Error string }
		if json.Unmarshal(data, &body) == nil && body.Error != "" {
			e.Message = body.Error
		} else {
			e.Message, e.Status = strings.TrimSpace(string(data)), 0
		}
		return e
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(data, out)
}

// apiError is an error answer of the app: its message, and its status
// when the answer was the app's JSON error (0 otherwise).
type apiError struct {
	Method, Path, Message string
	Status                int
}

func (e *apiError) Error() string {
	if e.Status == 0 {
		return e.Method + " " + e.Path + ": " + e.Message
	}
	return fmt.Sprintf("%s %s: %s (%d)", e.Method, e.Path, e.Message, e.Status)
}

// needsAdmin turns a 403 answer to a command's --all into what to do.
func needsAdmin(cmd, user string, err error) error {
	var ae *apiError
	if errors.As(err, &ae) && ae.Status == http.StatusForbidden {
		return fmt.Errorf("%s --all needs an admin: %s is not a Nextcloud admin (run it with --user of an admin, or without --all)", cmd, user)
	}
	return err
}
