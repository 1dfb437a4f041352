package app

import (
	"github.com/hybrid-search/hybridsearch/cli"
	"github.com/hybrid-search/hybridsearch/internal/e2etest"
)

// The helpers this package's tests share with the demo's (internal/e2etest).
var (
	doReq          = e2etest.DoReq
	freePort       = e2etest.FreePort
	listen         = e2etest.Listen
	itoa           = e2etest.Itoa
	needTSClient   = e2etest.NeedTSClient
	runNodeJSON    = e2etest.RunNodeJSON
	needInspector  = e2etest.NeedInspector
	inspectorDir   = e2etest.InspectorDir
	chromiumPath   = e2etest.ChromiumPath
	artifactsDir   = e2etest.ArtifactsDir
	runOAuthClient = e2etest.RunOAuthClient
	command        = e2etest.Command

	// The CLI commands, run against a test app.
	runStatus  = cli.Status
	runControl = cli.Control
	runToken   = cli.Token
)

type tsCall = e2etest.TSCall
