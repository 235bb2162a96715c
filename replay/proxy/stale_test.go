package proxy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/internal/testfs"
	"github.com/servesim/servesim/traces"
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
	// Before "delete it", the way to keep those rows, as record says.
	if !strings.Contains(err.Error(), "servesim trace convert") {
		t.Errorf("err %v: want it to say that servesim trace convert reads back the rows", err)
	}
	if b, _ := os.ReadFile(stale); string(b) != "rows of an earlier session" {
		t.Errorf("the stale staging stream changed: %q", b)
	}
}

// A session killed before Close leaves its flushed rows at the staging
// path, whatever Out's format (an .arrows Out's own temporary file is a
// hidden name no one would look for), which trace convert reads: the next
// session on the same --out refuses to start beside them. A session that
// closes leaves no staging stream, and no temporary file.
func TestKilledSessionLeavesStaging(t *testing.T) {
	for _, ext := range []string{".parquet", ".arrows", ".arrow", ".csv", ".jsonl"} {
		t.Run(ext, func(t *testing.T) {
			r := newRig(t, ext, func(c *Config) { c.FlushInterval = time.Millisecond })
			r.post(t, "/v1/chat/completions", chatBody("m", false, false, "one"))
			staging := stagingPath(r.out)
			n := 0
			for deadline := time.Now().Add(5 * time.Second); n != 1 && time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
				n, _ = traces.CountTolerant(staging) // not there yet: none
			}
			if n != 1 {
				t.Fatalf("%d rows readable at %s before Close, want 1", n, staging)
			}
			cfg := r.p.cfg
			if p, err := New(cfg); err == nil {
				p.Close()
				t.Errorf("New started beside the rows of a session that was not closed")
			}
			_, rows := r.finish(t)
			if len(rows) != 1 {
				t.Errorf("%d rows, want 1", len(rows))
			}
			if names := testfs.Names(t, filepath.Dir(r.out)); len(names) != 1 {
				t.Errorf("folder holds %q, want only the trace", names)
			}
		})
	}
}
