package replay

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A redirect is the server's answer, recorded as such: following it would
// resend the POST as a bodiless GET (301, 302, 303) to another URL and
// report that request's status as the POST's.
func TestRedirectIsNotFollowed(t *testing.T) {
	var gets int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/chat/completions" {
			http.Redirect(w, r, "/v2/chat/completions", http.StatusMovedPermanently)
			return
		}
		gets++
		w.WriteHeader(http.StatusMethodNotAllowed)
	}))
	defer srv.Close()
	cfg := testConfig(nil)
	cfg.BaseURL = srv.URL + "/v1"
	_, out := runRows(t, cfg, rows(1, 0, 40, 5))
	r := out[0]
	if r.HTTPStatus != http.StatusMovedPermanently || ErrorKind(r.Error) != KindHTTP ||
		!strings.Contains(r.Error, "HTTP 301") || !strings.Contains(r.Error, "/v2/chat/completions") || gets != 0 {
		t.Fatalf("status %d, error %q, %d requests followed the redirect; want 301 naming its Location, none followed", r.HTTPStatus, r.Error, gets)
	}
}
