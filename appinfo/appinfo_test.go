package appinfo_test

import (
	"bytes"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hybrid-search/hybridsearch/appinfo"
)

func TestVersion(t *testing.T) {
	if v := appinfo.Version(); !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(v) {
		t.Errorf("Version() = %q, want x.y.z", v)
	}
}

// TestInfoXMLAuthor: the author's address is a real-looking one (the app
// store shows it; a .invalid domain tells an admin nobody answers).
func TestInfoXMLAuthor(t *testing.T) {
	var info struct {
		Author struct {
			Mail string `xml:"mail,attr"`
		} `xml:"author"`
	}
	if err := xml.Unmarshal(appinfo.InfoXML, &info); err != nil {
		t.Fatal(err)
	}
	m := info.Author.Mail
	if !regexp.MustCompile(`^[^@\s]+@[a-z0-9-]+(\.[a-z0-9-]+)+$`).MatchString(m) ||
		regexp.MustCompile(`\.(invalid|example|test|localhost)$`).MatchString(m) {
		t.Errorf("info.xml author mail = %q, want a real address", m)
	}
}

// TestAppStoreSchema transforms info.xml with the app store's
// pre-info.xslt and validates the result against the store's info.xsd with
// xmllint, as the store does on upload (testdata/appstore/README.md).
// scripts/release runs it before it packs the archive.
func TestAppStoreSchema(t *testing.T) {
	for _, tool := range []string{"xsltproc", "xmllint"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (scripts/install-deps installs xsltproc and libxml2-utils)", tool)
		}
	}
	out, err := exec.Command("xsltproc", "testdata/appstore/pre-info.xslt", "info.xml").Output()
	if err != nil {
		t.Fatalf("xsltproc pre-info.xslt info.xml: %v", err)
	}
	transformed := string(out)
	xsd, err := os.ReadFile("testdata/appstore/info.xsd")
	if err != nil {
		t.Fatal(err)
	}
	// What the transform keeps of <external-app>, checked here when the
	// schema copy does not declare it.
	ext := regexp.MustCompile(`(?s)\s*<external-app>.*</external-app>`).FindString(transformed)
	if ext == "" {
		t.Fatal("the transform dropped <external-app>: AppAPI could not find the image")
	}
	var ea struct {
		Docker struct {
			Registry string `xml:"registry"`
			Image    string `xml:"image"`
			Tag      string `xml:"image-tag"`
		} `xml:"docker-install"`
	}
	if err := xml.Unmarshal([]byte(strings.TrimSpace(ext)), &ea); err != nil {
		t.Fatalf("external-app after the transform: %v\n%s", err, ext)
	}
	if ea.Docker.Registry == "" || ea.Docker.Image == "" || ea.Docker.Tag != appinfo.Version() {
		t.Errorf("docker-install after the transform = %+v, want registry, image and tag %s", ea.Docker, appinfo.Version())
	}
	if !strings.Contains(string(xsd), `name="external-app"`) {
		transformed = strings.Replace(transformed, ext, "", 1)
	}
	path := filepath.Join(t.TempDir(), "info.xml")
	if err := os.WriteFile(path, []byte(transformed), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	lint := exec.Command("xmllint", "--noout", "--schema", "testdata/appstore/info.xsd", path)
	lint.Stderr = &stderr
	if err := lint.Run(); err != nil {
		t.Errorf("info.xml does not validate against the app store's schema: %v\n%s", err, stderr.String())
	}
}
