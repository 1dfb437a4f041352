package main

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/hybrid-search/hybridsearch/appinfo"
)

// TestOneVersion fails when a place that states the app's version differs
// from appinfo/info.xml's <version>: the binary, the image tag info.xml
// names, the panel's package.json, the newest CHANGELOG.md release, and
// the Dockerfile, which must not set a version of its own.
func TestOneVersion(t *testing.T) {
	want := appinfo.Version()
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(want) {
		t.Fatalf("info.xml <version> = %q, want x.y.z", want)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"version"}, func(string) string { return "" }, &out, &errOut); code != 0 || out.String() != "hybridsearch "+want+"\n" {
		t.Errorf("hybridsearch version = %q (exit %d), want %q", out.String(), code, "hybridsearch "+want)
	}
	read := func(path string) string {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if m := regexp.MustCompile(`<image-tag>([^<]*)</image-tag>`).FindStringSubmatch(string(appinfo.InfoXML)); m == nil || m[1] != want {
		t.Errorf("info.xml <image-tag> = %v, want %s", m, want)
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal([]byte(read("../../frontend/package.json")), &pkg); err != nil || pkg.Version != want {
		t.Errorf("frontend/package.json version = %q (%v), want %s", pkg.Version, err, want)
	}
	if m := regexp.MustCompile(`(?m)^## \[(\d+\.\d+\.\d+)\]`).FindStringSubmatch(read("../../CHANGELOG.md")); m == nil || m[1] != want {
		t.Errorf("CHANGELOG.md's newest release = %v, want [%s]", m, want)
	}
	if df := read("../../Dockerfile"); strings.Contains(df, "main.Version") || regexp.MustCompile(`(?m)^ARG VERSION`).MatchString(df) {
		t.Error("the Dockerfile sets a version of its own; the binary reads info.xml")
	}
}

// TestInstallJSONCommand: hybridsearch install-json prints the manual
// install JSON with the admin's port and secret.
func TestInstallJSONCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run([]string{"install-json", "--port", "23001", "--secret", "abc"}, func(string) string { return "" }, &out, &errOut)
	var got struct {
		ID, Secret string
		Port       int
		Routes     []json.RawMessage
	}
	if code != 0 || json.Unmarshal(out.Bytes(), &got) != nil || got.ID != "hybrid_search" || got.Port != 23001 || got.Secret != "abc" || len(got.Routes) == 0 {
		t.Errorf("install-json = %d %q %q", code, out.String(), errOut.String())
	}
	if code := run([]string{"install-json", "extra"}, func(string) string { return "" }, &out, &errOut); code != 1 {
		t.Errorf("install-json with an argument exited %d, want 1", code)
	}
}
