package replay

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// Until the first request finishes no row is written; the partial stream
// must still read back from the start (its metadata, no rows), since a
// kill then leaves it for the next run to refuse until it is read or
// moved away.
func TestPartialReadsBackBeforeAnyRow(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // a request that never finishes while the test looks
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	dir := t.TempDir()
	cfg := testConfig(nil)
	cfg.BaseURL = srv.URL + "/v1"
	cfg.Timeout = time.Minute
	cfg.Trace = writeTrace(t, dir, "in.parquet", rows(1, 0, 30, 4))
	cfg.Out = filepath.Join(dir, "out.parquet")
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := Record(ctx, cfg, io.Discard)
		done <- err
	}()
	partial := PartialPath(cfg.Out)
	var (
		meta traces.Meta
		n    int
		err  error
	)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var rows []*traces.Request
		if meta, rows, err = traces.ReadAll(partial); err == nil {
			n = len(rows)
			break
		}
	}
	cancel()
	<-done
	if err != nil {
		t.Fatalf("the partial file does not read back before the first row: %v", err)
	}
	if n != 0 || meta.Extra["replay.status"] != "partial" {
		t.Errorf("%d rows, status %q; want none, partial", n, meta.Extra["replay.status"])
	}
}
