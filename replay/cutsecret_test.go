package replay

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/replay/replaytest"
)

// A server that echoes the key in a long error page: the Error column
// keeps the first 200 bytes of the page, and the raw file the first 4 KiB.
// Where either cut falls inside the key, the part of the key before the
// cut must be masked too, not written because the whole key is not there.
func TestCutSecretIsMasked(t *testing.T) {
	const key = "sk-servesim-CUTLEAK-0123456789abcdefghij"
	for _, at := range []int{185, 4096 - 20} { // the key straddles byte 200, then byte 4096
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			w.Write([]byte(strings.Repeat("x", at) + got + strings.Repeat("y", 6000)))
		}))
		t.Setenv("SERVESIM_CUT_KEY", key)
		cfg := testConfig(nil)
		cfg.BaseURL = srv.URL + "/v1"
		cfg.APIKeyEnv = "SERVESIM_CUT_KEY"
		cfg.SaveRaw = t.TempDir()
		_, out := runRows(t, cfg, rows(1, 0, 40, 5))
		srv.Close()
		if ErrorKind(out[0].Error) != KindServer {
			t.Fatalf("at %d: error %q, want a server error", at, out[0].Error)
		}
		// Any 8 bytes of the key give it away in part.
		leaks := []string{key[:8], key[len(key)-8:]}
		for i := 0; i+8 <= len(key); i += 4 {
			leaks = append(leaks, key[i:i+8])
		}
		if n := replaytest.CheckNoSecret(t, "at "+itoa(at)+": the Error column", out[0].Error, cfg.SaveRaw, leaks...); n != 1 {
			files, _ := filepath.Glob(filepath.Join(cfg.SaveRaw, "*"))
			t.Fatalf("at %d: %d raw files, want 1: %v", at, n, files)
		}
	}
}

// A URL's user, password or query values are masked in the error text, but
// the kind that opens it is ours and must survive the masking: a user
// named "server" would otherwise turn server_error into "[redacted]_error",
// which the summary then counts as a kind of its own.
func TestRedactionKeepsTheKind(t *testing.T) {
	srv := replaytest.New(replaytest.Options{Fault: func(int) replaytest.Fault { return replaytest.Status }})
	defer srv.Close()
	cfg := testConfig(srv)
	cfg.BaseURL = strings.Replace(srv.BaseURL(), "http://", "http://server:hunter2secret@", 1)
	s, out := runRows(t, cfg, rows(2, 0, 40, 5))
	for _, r := range out {
		if k := ErrorKind(r.Error); k != KindServer {
			t.Errorf("kind %q, want %q (error %q)", k, KindServer, r.Error)
		}
		if strings.Contains(r.Error, "hunter2secret") {
			t.Errorf("Error shows the password: %q", r.Error)
		}
	}
	if s.FailedByKind[KindServer] != 2 || len(s.FailedByKind) != 1 {
		t.Errorf("failed by kind %v, want server_error 2", s.FailedByKind)
	}
}
