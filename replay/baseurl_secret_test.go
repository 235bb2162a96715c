package replay

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// A base URL's password and query (?api-key=...) are sent, but reach
// neither the Error column, however the request fails, nor the output's
// metadata, which still names the host.
func TestBaseURLQueryNeverWritten(t *testing.T) {
	const pw, q = "PWLEAK-b3c1", "QLEAK-9d2e"
	answers := map[string]func(w http.ResponseWriter, r *http.Request){
		"500": func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) },
		"404": func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) },
		// A server that echoes the request's query back.
		"401 echo": func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(401)
			w.Write([]byte(`{"error":{"message":"bad api-key ` + r.URL.Query().Get("api-key") + `"}}`))
		},
		"redirect": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "https://elsewhere"+r.URL.RequestURI(), http.StatusMovedPermanently)
		},
		"timeout": func(w http.ResponseWriter, r *http.Request) { time.Sleep(500 * time.Millisecond) },
	}
	for name, h := range answers {
		var gotQuery bool
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			gotQuery = r.URL.Query().Get("api-key") == q
			h(w, r)
		}))
		cfg := testConfig(nil)
		cfg.BaseURL = strings.Replace(srv.URL, "http://", "http://me:"+pw+"@", 1) + "/v1?api-key=" + q + "#" + q
		if name == "timeout" {
			cfg.Timeout = 100 * time.Millisecond
		}
		_, out := runRows(t, cfg, rows(1, 0, 40, 5))
		srv.Close()
		checkNoSecret(t, name, out[0], pw, q)
		if !gotQuery {
			t.Errorf("%s: the query did not reach the server", name)
		}
		if host := strings.TrimPrefix(srv.URL, "http://"); !strings.Contains(out[0].Error, host) {
			t.Errorf("%s: the Error column does not name the server %s: %q", name, host, out[0].Error)
		}
	}
	// https to a plain HTTP server: the client's own error quotes the URL.
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	cfg := testConfig(nil)
	cfg.BaseURL = strings.Replace(srv.URL, "http://", "https://me:"+pw+"@", 1) + "/v1?api-key=" + q
	_, out := runRows(t, cfg, rows(1, 0, 40, 5))
	checkNoSecret(t, "https to http", out[0], pw, q)

	cfg.BaseURL += "#" + q
	meta := OutputMeta(traces.Meta{}, cfg, 1)
	if got, want := meta.Extra["replay.base_url"], strings.Replace(srv.URL, "http://", "https://", 1)+"/v1"; got != want {
		t.Errorf("metadata replay.base_url %q, want %q", got, want)
	}
}

func checkNoSecret(t *testing.T, name string, r *traces.Request, secrets ...string) {
	t.Helper()
	if r.Error == "" {
		t.Fatalf("%s: expected a failure", name)
	}
	for _, s := range secrets {
		if strings.Contains(r.Error, s) {
			t.Errorf("%s: the Error column holds %q: %q", name, s, r.Error)
		}
	}
}

// A base URL that is refused is named in the error without its query.
func TestValidateBaseURLHidesQuery(t *testing.T) {
	for _, raw := range []string{"ftp://host/v1?api-key=QLEAK-9d2e", "http://host:bad port/v1?api-key=QLEAK-9d2e", "http:host/v1?api-key=QLEAK-9d2e"} {
		c := Config{BaseURL: raw, Model: "m"}
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), "BaseURL") {
			t.Fatalf("%s: error %v, want one naming BaseURL", raw, err)
		}
		if strings.Contains(err.Error(), "QLEAK") {
			t.Errorf("%s: error shows the query: %v", raw, err)
		}
		if !strings.Contains(err.Error(), "host") {
			t.Errorf("%s: error does not name the host: %v", raw, err)
		}
	}
}
