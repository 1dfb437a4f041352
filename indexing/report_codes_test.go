package indexing_test

import (
	"context"
	"slices"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing"
)

// TestComponentCodesAndNotes: a component state carries a code the panel
// translates; a missing optional OCR language is a note on a working
// component, not "unhealthy" (issue 23); users who are not admins get the
// codes without the admins' texts ("install tesseract-ocr-…").
func TestComponentCodesAndNotes(t *testing.T) {
	r := &indexing.Reporter{
		Checks: map[string]indexing.Check{
			"ocr": func(context.Context) error {
				return &hs.ComponentNote{Code: hs.ComponentOCRLanguagesMissing, Message: "OCR languages not installed (install tesseract-ocr-<code>): fra", Detail: []string{"fra"}}
			},
			"settings": func(context.Context) error {
				return hs.Errorf(hs.EINVALID, "the admin settings could not be read from Nextcloud: timeout").WithCode(hs.ComponentSettingsUnreadable)
			},
			"store": func(context.Context) error { return nil },
		},
		IsAdmin: func(_ context.Context, u hs.UserID) (bool, error) { return u == "admin", nil },
	}
	admin, err := r.Status(t.Context(), "admin", false)
	if err != nil {
		t.Fatal(err)
	}
	ocr, set := admin.Components["ocr"], admin.Components["settings"]
	if !ocr.OK || ocr.Code != hs.ComponentOCRLanguagesMissing || ocr.Note == "" || !slices.Equal(ocr.Detail, []string{"fra"}) || ocr.Error != "" {
		t.Errorf("ocr for an admin = %+v, want OK with the note", ocr)
	}
	if set.OK || set.Code != hs.ComponentSettingsUnreadable || set.Error == "" {
		t.Errorf("settings for an admin = %+v", set)
	}
	user, err := r.Status(t.Context(), "bob", false)
	if err != nil {
		t.Fatal(err)
	}
	ocr, set = user.Components["ocr"], user.Components["settings"]
	if !ocr.OK || ocr.Code != hs.ComponentOCRLanguagesMissing || ocr.Note != "" || ocr.Detail != nil {
		t.Errorf("ocr for a user = %+v, want the code only", ocr)
	}
	if set.OK || set.Code != hs.ComponentSettingsUnreadable || set.Error != "not working; an administrator can see why" {
		t.Errorf("settings for a user = %+v, want the code and no detail", set)
	}
	// Only the settings' failure makes the app unhealthy, not the note.
	r.Checks["settings"] = func(context.Context) error { return nil }
	if st, _ := r.Status(t.Context(), "admin", false); !st.Healthy {
		t.Errorf("a missing optional OCR language makes the status unhealthy: %+v", st.Components)
	}
}
