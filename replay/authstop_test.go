package replay

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/servesim/servesim/replay/replaytest"
)

// A message that ends in a full stop is not followed by "; ".
func TestAuthMessagePunctuation(t *testing.T) {
	srv := replaytest.New(replaytest.Options{APIKey: "right"})
	defer srv.Close()
	_, out := runRows(t, testConfig(srv), rows(1, 0, 40, 5))
	if msg := out[0].Error; ErrorKind(msg) != KindAuth || strings.Contains(msg, ".;") {
		t.Errorf("error %q", msg)
	}
}

// Nor is a 404's message before the base URL hint.
func TestNotFoundMessagePunctuation(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"detail":"Not Found."}`))
	}))
	defer srv.Close()
	cfg := testConfig(nil)
	cfg.BaseURL = srv.URL // no /v1: the hint says so
	_, out := runRows(t, cfg, rows(1, 0, 40, 5))
	if msg := out[0].Error; ErrorKind(msg) != KindNotFound || !strings.Contains(msg, "has no /v1") || strings.Contains(msg, ".;") {
		t.Errorf("error %q", msg)
	}
}
