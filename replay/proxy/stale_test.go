package proxy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A staging stream left by a session whose trace was never written (its
// conversion failed, or it was killed) holds that session's rows: a new
// proxy on the same --out refuses to start rather than replace it.
func TestNewRefusesStaleStaging(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Upstream = "http://127.0.0.1:1"
	cfg.Out = filepath.Join(t.TempDir(), "run.parquet")
	stale := stagingPath(cfg.Out)
	if err := os.WriteFile(stale, []byte("rows of an earlier session"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := New(cfg)
	if err == nil {
		p.Close()
		t.Fatal("New replaced a staging stream left by an earlier session")
	}
	if !strings.Contains(err.Error(), stale) {
		t.Errorf("err %v: want one naming %s", err, stale)
	}
	if b, _ := os.ReadFile(stale); string(b) != "rows of an earlier session" {
		t.Errorf("the stale staging stream changed: %q", b)
	}
}
