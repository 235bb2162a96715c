package replay

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A server that redirects with the key in the Location's query has it
// URL-encoded there: a key holding '+', '/' or '=' is masked in that form
// too.
func TestKeyURLEncodedInARedirectIsMasked(t *testing.T) {
	const key = "sk-LE+AK/5f3a=9b"
	t.Setenv("SERVESIM_TEST_KEY_ENCODED", key)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://login.example/?token="+url.QueryEscape(key), http.StatusFound)
	}))
	defer srv.Close()
	cfg := testConfig(nil)
	cfg.BaseURL = srv.URL + "/v1"
	cfg.APIKeyEnv = "SERVESIM_TEST_KEY_ENCODED"
	_, out := runRows(t, cfg, rows(1, 0, 40, 5))
	checkNoSecret(t, "redirect", out[0], key, url.QueryEscape(key))
}

// A server that echoes the Authorization header in a JSON error body may
// escape the key's characters there (Go's encoder: '&' as \u0026): the
// raw body saved and the Error column mask that form too.
func TestKeyJSONEscapedInARawBodyIsMasked(t *testing.T) {
	const key = "sk-LE&AK<5f>9b"
	t.Setenv("SERVESIM_TEST_KEY_ENCODED", key)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": "bad key", "headers": r.Header}})
		w.WriteHeader(http.StatusUnauthorized)
		w.Write(b)
	}))
	defer srv.Close()
	cfg := testConfig(nil)
	cfg.BaseURL = srv.URL + "/v1"
	cfg.APIKeyEnv = "SERVESIM_TEST_KEY_ENCODED"
	cfg.SaveRaw = filepath.Join(t.TempDir(), "raw")
	runRows(t, cfg, rows(1, 0, 40, 5))
	files, _ := filepath.Glob(filepath.Join(cfg.SaveRaw, "*"))
	if len(files) != 1 {
		t.Fatalf("raw bodies %q, want 1", files)
	}
	data, _ := os.ReadFile(files[0])
	if strings.Contains(string(data), "AK") {
		t.Errorf("the raw body holds the key: %s", data)
	}
}
