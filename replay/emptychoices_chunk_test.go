package replay

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/servesim/servesim/replay/replaytest"
)

// A chunk of no choices and no usage is shown: a server's message in a
// shape of its own ({"detail": ...}) is otherwise lost. A key the server
// echoes in it stays masked.
func TestEmptyChoicesShowsTheChunk(t *testing.T) {
	const key = "sk-servesim-EMPTYCHUNK-0123456789"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"))
		w.Write([]byte(`data: {"detail":"model overloaded","key":"` + got + `","pad":"` + strings.Repeat("x", 300) + "\"}\n\n"))
	}))
	defer srv.Close()
	t.Setenv("SERVESIM_EMPTYCHUNK_KEY", key)
	cfg := testConfig(nil)
	cfg.BaseURL = srv.URL + "/v1"
	cfg.APIKeyEnv = "SERVESIM_EMPTYCHUNK_KEY"
	_, out := runRows(t, cfg, rows(1, 0, 40, 5))
	msg := out[0].Error
	if ErrorKind(msg) != KindEmptyChoices || !strings.Contains(msg, "model overloaded") {
		t.Errorf("error %q, want an %s showing the chunk", msg, KindEmptyChoices)
	}
	if len(msg) > 400 {
		t.Errorf("error of %d bytes: the chunk is not clipped: %q", len(msg), msg)
	}
	replaytest.CheckNoSecret(t, "the Error column", msg, "", key)

	fs := replaytest.New(replaytest.Options{Fault: always(replaytest.EmptyChoices)})
	defer fs.Close()
	_, out = runRows(t, testConfig(fs), rows(1, 0, 40, 5))
	if msg := out[0].Error; !strings.Contains(msg, `"choices":[]`) {
		t.Errorf("error %q does not show the chunk", msg)
	}
}
