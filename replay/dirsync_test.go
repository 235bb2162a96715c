package replay

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/internal/atomicfile"
	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

// dirUnsyncedTrace is a trace writer whose Close renames the stream into
// place, then reports its directory's sync as failed.
type dirUnsyncedTrace struct {
	traces.Writer
	path string
}

func (w *dirUnsyncedTrace) Flush() error { return w.Writer.(traces.Flusher).Flush() }

func (w *dirUnsyncedTrace) TempPath() string {
	return w.Writer.(interface{ TempPath() string }).TempPath()
}

func (w *dirUnsyncedTrace) Close() error {
	if err := w.Writer.Close(); err != nil {
		return err
	}
	return fmt.Errorf("%s: %w: %w", w.path, atomicfile.ErrDirNotSynced, errors.New("input/output error"))
}

// A partial stream renamed into place whose directory was not synced holds
// every row: the run writes its trace from it, and leaves neither the
// stream nor its hidden temporary file behind.
func TestPartialDirNotSyncedStillWritesTrace(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	cfg, dir := recordConfig(t, srv, rows(3, time.Millisecond, 30, 2))
	wrapPartialTrace(t, func(path string, w traces.Writer) traces.Writer {
		return &dirUnsyncedTrace{Writer: w, path: path}
	})
	sums, err := Record(t.Context(), cfg, nil)
	if err != nil {
		t.Fatalf("Record: %v; want the trace written", err)
	}
	checkOutcome(t, cfg, sums, true, "")
	checkTraceRows(t, cfg.Out, 3)
	checkOnlyInAndOut(t, dir)
}

// A trace renamed to --out whose directory was not synced is written: the
// run says so and reports the error, and removes its partial stream, which
// would make the next run refuse to start.
func TestOutDirNotSyncedCountsAsWritten(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	cfg, dir := recordConfig(t, srv, rows(3, time.Millisecond, 30, 2))
	t.Cleanup(atomicfile.FailDirSync(errors.New("input/output error")))
	sums, err := Record(t.Context(), cfg, nil)
	if !errors.Is(err, atomicfile.ErrDirNotSynced) {
		t.Fatalf("Record: %v; want ErrDirNotSynced", err)
	}
	checkOutcome(t, cfg, sums, true, "")
	checkTraceRows(t, cfg.Out, 3)
	checkOnlyInAndOut(t, dir)
}

// The partial stream's name is a hard link made as the run starts: its
// directory is synced then, so that a machine crash keeps the name as the
// flushes keep the rows, and a failed sync is said at once, while the run
// the crash would cut short goes on.
func TestPartialLinkDirNotSyncedIsSaid(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	cfg, dir := recordConfig(t, srv, rows(3, time.Millisecond, 30, 2))
	t.Cleanup(atomicfile.FailDirSync(errors.New("input/output error")))
	var log strings.Builder
	sums, err := Record(t.Context(), cfg, &log)
	if err != nil && !atomicfile.OnlyNotSynced(err) {
		t.Fatalf("Record: %v; want the trace written", err)
	}
	want := fmt.Sprintf("warning: %s: its directory was not synced (input/output error)", PartialPath(cfg.Out))
	if !strings.Contains(log.String(), want) {
		t.Errorf("log:\n%s\nwant it to say %q", log.String(), want)
	}
	checkOutcome(t, cfg, sums, true, "")
	checkTraceRows(t, cfg.Out, 3)
	checkOnlyInAndOut(t, dir)
}

// Where the partial stream cannot be linked (a file system without hard
// links), the rows go only to its hidden temporary file: the run names it,
// syncs its directory so that a machine crash keeps it, and says when
// that sync failed.
func TestPartialNotLinkedTempDirSynced(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	cfg, _ := recordConfig(t, srv, rows(3, time.Millisecond, 30, 2))
	orig := linkFile
	t.Cleanup(func() { linkFile = orig })
	linkFile = func(from, to string) error {
		return &os.LinkError{Op: "link", Old: from, New: to, Err: errors.New("operation not permitted")}
	}
	t.Cleanup(atomicfile.FailDirSync(errors.New("input/output error")))
	var log strings.Builder
	sums, err := Record(t.Context(), cfg, &log)
	if err != nil && !atomicfile.OnlyNotSynced(err) {
		t.Fatalf("Record: %v; want the trace written", err)
	}
	_, rest, ok := strings.Cut(log.String(), "rows go to ")
	tmp, _, named := strings.Cut(rest, " (an Arrow IPC stream)")
	if !ok || !named || tmp == PartialPath(cfg.Out) {
		t.Fatalf("log:\n%s\nwant it to name the temporary file the rows go to", log.String())
	}
	want := fmt.Sprintf("warning: %s: its directory was not synced (input/output error)", tmp)
	if !strings.Contains(log.String(), want) {
		t.Errorf("log:\n%s\nwant it to say %q", log.String(), want)
	}
	checkOutcome(t, cfg, sums, true, "")
	checkTraceRows(t, cfg.Out, 3)
}
