package replay

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

// failingTrace is a trace writer that takes `left` rows and refuses the
// next, as on a full disk, calling onFail first.
type failingTrace struct {
	traces.Writer
	left   int
	onFail func()
}

func (w *failingTrace) Write(r *traces.Request) error {
	if w.left == 0 {
		w.onFail()
		return errors.New("no space left on device")
	}
	w.left--
	return w.Writer.Write(r)
}

func (w *failingTrace) Flush() error { return w.Writer.(traces.Flusher).Flush() }

func (w *failingTrace) TempPath() string {
	return w.Writer.(interface{ TempPath() string }).TempPath()
}

// failPartialAfter makes Record's partial stream refuse its row n+1,
// calling onFail first, for the rest of the test.
func failPartialAfter(t *testing.T, n int, onFail func()) {
	t.Helper()
	wrapPartialTrace(t, func(_ string, w traces.Writer) traces.Writer {
		return &failingTrace{Writer: w, left: n, onFail: onFail}
	})
}

// A write error followed by an interrupt is a failed run, not an
// interrupted one: the rows after the error were not written, so no trace
// is published as if it held every row measured until the interrupt; the
// rows written stay in the partial file, which the error names.
func TestWriteErrorThenInterruptPublishesNoTrace(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	cfg, _ := recordConfig(t, srv, rows(10, time.Millisecond, 30, 2))
	ctx, interrupt := context.WithCancel(t.Context())
	defer interrupt()
	failPartialAfter(t, 2, interrupt)
	sums, err := Record(ctx, cfg, nil)
	if err == nil || !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("Record: %v; want the write error", err)
	}
	partial := PartialPath(cfg.Out)
	if !strings.Contains(err.Error(), partial) {
		t.Errorf("error %q does not name %s, where the rows written are kept", err, partial)
	}
	checkOutcome(t, cfg, sums, false, partial)
	if _, err := os.Lstat(cfg.Out); !errors.Is(err, os.ErrNotExist) {
		meta, got, _ := traces.ReadAll(cfg.Out)
		t.Errorf("%s was written (%d rows, replay.status %q) though rows after the write error were lost", cfg.Out, len(got), meta.Extra["replay.status"])
	}
}

// closeFailingTrace is a trace writer whose Close fails as on a full
// disk: its temporary file is removed, as the real writer's is.
type closeFailingTrace struct{ failingTrace }

func (w *closeFailingTrace) Close() error {
	w.Writer.Abort()
	return errors.New("no space left on device")
}

// A partial stream that cannot be closed fails the run, and the error says
// where the rows written so far are, as a failed write's does: else the
// file turns up only when the next run refuses to start beside it.
func TestCloseErrorNamesWhereRowsStay(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	cfg, _ := recordConfig(t, srv, rows(3, time.Millisecond, 30, 2))
	wrapPartialTrace(t, func(_ string, w traces.Writer) traces.Writer {
		return &closeFailingTrace{failingTrace{Writer: w, left: -1}}
	})
	sums, err := Record(t.Context(), cfg, nil)
	partial := PartialPath(cfg.Out)
	if err == nil || !strings.Contains(err.Error(), "no space left on device") || !strings.Contains(err.Error(), "stay in "+partial) {
		t.Fatalf("Record: %v; want the close error, saying the rows stay in %s", err, partial)
	}
	checkOutcome(t, cfg, sums, false, partial)
	if n := countRows(partial); n != 3 {
		t.Errorf("%s holds %d rows, want 3", partial, n)
	}
}
