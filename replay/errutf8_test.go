package replay

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"
)

// A failure's Error is valid UTF-8, as Arrow and Parquet strings must be,
// however the server's error page is encoded and wherever it is clipped.
func TestErrorTextIsUTF8(t *testing.T) {
	for name, page := range map[string]string{
		"cut mid-rune": strings.Repeat("a", 199) + strings.Repeat("é", 50),
		"latin-1":      "Service indisponible: r\xe9essayez plus tard",
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(page))
		}))
		cfg := testConfig(nil)
		cfg.BaseURL = srv.URL + "/v1"
		_, out := runRows(t, cfg, rows(1, 0, 40, 5))
		srv.Close()
		if e := out[0].Error; ErrorKind(e) != KindServer || !utf8.ValidString(e) {
			t.Errorf("%s: error %q: want a %s error in valid UTF-8", name, e, KindServer)
		}
	}
}
