package replay

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
)

// A raw-body directory that is a file (the trace, say) is refused before
// any request, as a directory with bodies is: the run failed only once
// it came to create it, after the engine had been probed.
func TestRecordRefusesARawDirThatIsAFile(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	dir := t.TempDir()
	cfg := testConfig(srv)
	cfg.Trace = writeTrace(t, dir, "in.jsonl", rows(2, time.Millisecond, 30, 3))
	cfg.Out = filepath.Join(dir, "out.jsonl")
	cfg.SaveRaw = cfg.Trace
	_, err := Record(t.Context(), cfg, nil)
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "SaveRaw" || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("Record with SaveRaw %s a file: %v, want a SaveRaw error saying it is not a directory", cfg.SaveRaw, err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent before the refusal", n)
	}
	if _, err := os.Stat(cfg.Out); !os.IsNotExist(err) {
		t.Errorf("%s written: %v", cfg.Out, err)
	}
}
