package replay

import (
	"net/http"
	"net/http/httptest"
	"net/url"
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
