package replay

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

// flushFailingTrace is a trace writer that stores its first keep rows,
// then fails every flush that holds another as on a full disk: the rows
// of the failed batch are lost, as the real writer's are. Counting rows,
// not flushes, keeps the test free of the flush timer's timing.
type flushFailingTrace struct {
	traces.Writer
	keep    int
	pending []*traces.Request
}

func (w *flushFailingTrace) Write(r *traces.Request) error {
	w.pending = append(w.pending, r.Clone())
	return nil
}

func (w *flushFailingTrace) Flush() error {
	rows := w.pending
	w.pending = nil
	for _, r := range rows {
		if w.keep == 0 {
			return errors.New("no space left on device")
		}
		w.keep--
		if err := w.Writer.Write(r); err != nil {
			return err
		}
		if err := w.Writer.(traces.Flusher).Flush(); err != nil {
			return err
		}
	}
	return nil
}

func (w *flushFailingTrace) TempPath() string {
	return w.Writer.(interface{ TempPath() string }).TempPath()
}

// failFlushesAfter makes Record's partial stream keep its first keep
// rows and lose every flush after, for the rest of the test.
func failFlushesAfter(t *testing.T, keep int) {
	t.Helper()
	wrapPartialTrace(t, func(_ string, w traces.Writer) traces.Writer {
		return &flushFailingTrace{Writer: w, keep: keep}
	})
}

// After a failed flush the partial file holds the rows of the flushes
// before it, not every row written: the error says how many it holds.
func TestFlushErrorSaysHowManyRowsStay(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	cfg, _ := recordConfig(t, srv, rows(4, 60*time.Millisecond, 30, 2))
	cfg.FlushEvery = 5 * time.Millisecond
	failFlushesAfter(t, 1)
	_, err := Record(t.Context(), cfg, nil)
	partial := PartialPath(cfg.Out)
	if err == nil || !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("Record: %v; want the flush error", err)
	}
	n := countRows(partial)
	if n != 1 {
		t.Fatalf("%s holds %d rows: want the one stored before the disk filled", partial, n)
	}
	if want := fmt.Sprintf("%d of the ", n); !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), partial) {
		t.Errorf("error %q: want it to say %s holds %d of the rows written", err, partial, n)
	}
}

// A failed flush that lost every row written leaves no partial file: it
// would hold none of them, yet be reported as where the rows stay, and
// the next run would refuse to start beside it.
func TestFlushErrorKeepingNoRowLeavesNoPartialFile(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	cfg, _ := recordConfig(t, srv, rows(3, time.Millisecond, 30, 2))
	failFlushesAfter(t, 0)
	sums, err := Record(t.Context(), cfg, nil)
	if err == nil || !strings.Contains(err.Error(), "no space left on device") || !strings.Contains(err.Error(), "none of the") {
		t.Fatalf("Record: %v; want the flush error, saying none of the rows written were kept", err)
	}
	checkOutcome(t, cfg, sums, false, "")
	checkNoPartialFile(t, cfg.Out)
}
