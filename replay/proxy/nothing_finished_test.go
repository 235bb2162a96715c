package proxy

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// serveUntil runs a proxy for cfg, sends one chat stream when send is
// set, ends the session once up has it (or at once), and returns what
// Serve returned.
func serveUntil(t *testing.T, cfg Config, up *upstream, send bool) (Stats, error) {
	t.Helper()
	p := startServe(t, cfg)
	if send {
		go p.sendStreamUntilCut()
		<-up.received
	}
	return p.stop()
}

// A session that ends before any request finished captured nothing: the
// requests the shutdown cut short do not count. It writes no trace and
// leaves an earlier file of Out's name, and its prompts file, as they
// were, as record does when an interrupt leaves nothing measured.
func TestSessionWithNothingFinishedKeepsTheEarlierTrace(t *testing.T) {
	for _, tc := range []struct {
		name string
		send bool
	}{{"no request", false}, {"only a request cut at shutdown", true}} {
		t.Run(tc.name, func(t *testing.T) {
			up := &upstream{t: t, gate: make(chan struct{}), received: make(chan struct{}, 1)}
			upSrv := httptest.NewServer(up)
			defer upSrv.Close()
			defer close(up.gate) // before the server's Close, which waits for the stream
			cfg := DefaultConfig()
			cfg.Upstream = upSrv.URL
			cfg.ShutdownGrace = 20 * time.Millisecond
			cfg.KeepPrompts = true
			cfg.Out = filepath.Join(t.TempDir(), "run.jsonl")
			for _, path := range []string{cfg.Out, PromptsPath(cfg.Out)} {
				if err := os.WriteFile(path, []byte("earlier\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			st, err := serveUntil(t, cfg, up, tc.send)
			if err != nil {
				t.Fatal(err)
			}
			for _, path := range []string{cfg.Out, PromptsPath(cfg.Out)} {
				if b, _ := os.ReadFile(path); string(b) != "earlier\n" {
					t.Errorf("%s now holds %q: want the earlier file left as it was", path, b)
				}
			}
			if _, err := os.Lstat(stagingPath(cfg.Out)); err == nil {
				t.Errorf("%s left: it holds no finished request", stagingPath(cfg.Out))
			}
			if st.Written || st.RowsLeft != "" || !st.NoneFinished {
				t.Errorf("stats %+v: want no trace written, no rows left and NoneFinished", st)
			}
			entries, _ := os.ReadDir(filepath.Dir(cfg.Out))
			if len(entries) != 2 {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("files %v: want only the two earlier ones", names)
			}
		})
	}
}
