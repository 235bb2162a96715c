package replay

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Raw bodies are diagnostics, so a run goes on without them; but one that
// asked for them and got none must say so, not end as if they were saved.
func TestSaveRawFailureIsSaid(t *testing.T) {
	raw := filepath.Join(t.TempDir(), "raw")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		os.RemoveAll(raw) // gone by the time the body is saved
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	cfg := testConfig(nil)
	cfg.BaseURL = srv.URL + "/v1"
	cfg.SaveRaw = raw
	s, _ := runRows(t, cfg, rows(2, 0, 40, 5))
	if w := strings.Join(s.Warnings, "\n"); !strings.Contains(w, "2 raw bodies were not saved") || strings.Contains(w, ".tmp") {
		t.Errorf("warnings %q, want the 2 raw bodies not saved, named by their own paths", s.Warnings)
	}
}
