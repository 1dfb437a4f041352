package handlers

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	hs "github.com/hybrid-search/hybridsearch"
)

// Observer is told what the handlers count (*metrics.Metrics).
type Observer interface {
	WebhookReceived(event string)
	WebhookRejected(reason string)
}

// ReadyCheck is one component /readyz looks at. A failing check with
// Fatal set makes the app not ready (503); others are reported only.
type ReadyCheck struct {
	Name  string
	Fatal bool
	Run   func(ctx context.Context) error
}

// Ops are the operator endpoints, served on the app's own listener and
// never through the AppAPI proxy (appinfo/info.xml routes none of them):
// GET /metrics, /healthz (200 while the process runs) and /readyz.
type Ops struct {
	Metrics http.Handler // serves /metrics; nil leaves the route out
	Checks  []ReadyCheck // what /readyz looks at
}

// readyTimeout bounds each readiness check.
const readyTimeout = 5 * time.Second

// readyBody is the JSON body of /readyz: "ok" or the error per component.
type readyBody struct {
	Ready      bool              `json:"ready"`
	Components map[string]string `json:"components"`
}

// Register adds the operator routes to e.
func (o *Ops) Register(e *echo.Echo) {
	if o == nil {
		return
	}
	if o.Metrics != nil {
		e.GET("/metrics", echo.WrapHandler(o.Metrics))
	}
	e.GET("/healthz", func(c echo.Context) error { return c.JSON(http.StatusOK, map[string]string{"status": "alive"}) })
	e.GET("/readyz", o.handleReady)
}

// handleReady runs every check at once and answers 503 naming the
// failing components when a fatal one fails.
func (o *Ops) handleReady(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), readyTimeout)
	defer cancel()
	body := readyBody{Ready: true, Components: map[string]string{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, chk := range o.Checks {
		wg.Go(func() {
			err := chk.Run(ctx)
			msg := "ok"
			if err != nil {
				msg = hs.ErrorMessage(err)
				if errors.Is(err, context.DeadlineExceeded) {
					msg = "no answer within " + readyTimeout.String()
				}
			}
			mu.Lock()
			defer mu.Unlock()
			body.Components[chk.Name] = msg
			if err != nil && chk.Fatal {
				body.Ready = false
			}
		})
	}
	wg.Wait()
	status := http.StatusOK
	if !body.Ready {
		status = http.StatusServiceUnavailable
	}
	return c.JSON(status, body)
}

// OpsHandler serves only the operator endpoints (the worker, and
// METRICS_ADDR beside the HaRP socket), with request ids.
func OpsHandler(o *Ops) http.Handler {
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.Use(middleware.Recover())
	e.Use(requestIDFrom(nil)) // AppAPI never calls these
	o.Register(e)
	return e
}

// RequestIDHeader is the response header that carries the request id.
const RequestIDHeader = "X-Request-Id"

// maxRequestID bounds an AA-REQUEST-ID taken over (Nextcloud's own are
// 20 characters); longer or unprintable ones are replaced.
const maxRequestID = 128

// requestIDFrom puts the request's id into its context and the response
// header: AppAPI's AA-REQUEST-ID (Nextcloud's request id, sent by
// lib/Service/AppAPICommonService.php buildAppAPIAuthHeaders, app_api
// v32.0.0–v35) when fromAppAPI says AppAPI sent the request and the id is
// sane, else a new random one. A client can send AA-REQUEST-ID too (HaRP
// passes it through), and its id would be matched with a Nextcloud log
// line it has nothing to do with. Logs written with the request context
// carry it as request_id. A nil fromAppAPI takes no id over.
func requestIDFrom(fromAppAPI func(*http.Request) bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			id := req.Header.Get("AA-REQUEST-ID")
			if !saneRequestID(id) || fromAppAPI == nil || !fromAppAPI(req) {
				id = newRequestID()
			}
			c.SetRequest(req.WithContext(hs.NewContextWithRequestID(req.Context(), id)))
			c.Response().Header().Set(RequestIDHeader, id)
			return next(c)
		}
	}
}

func saneRequestID(id string) bool {
	if id == "" || len(id) > maxRequestID {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] <= ' ' || id[i] > '~' {
			return false
		}
	}
	return true
}

func newRequestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// observeWebhook counts refused webhook requests by reason, whatever
// refused them (authentication, the body limit, the parser, the queue);
// handleWebhook counts the accepted ones by event.
func (s *Server) observeWebhook(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		err := next(c)
		if err == nil || s.observer == nil || c.Path() != WebhookPath {
			return err
		}
		reason := hs.ErrorKind(err)
		var he *echo.HTTPError
		if errors.As(err, &he) {
			reason = "http_" + http.StatusText(he.Code)
			switch he.Code {
			case http.StatusRequestEntityTooLarge:
				reason = hs.ETOOLARGE
			case http.StatusForbidden:
				reason = hs.EUNAUTHORIZED
			}
		}
		s.observer.WebhookRejected(reason)
		return err
	}
}
