package proxy

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/atomicfile"
	"github.com/servesim/servesim/internal/testfs"
)

// A trace renamed to Out whose directory was not synced is written: Close
// reports the error, but says the trace is written, publishes the prompts
// and leaves no staging file, which the next session would refuse to
// start beside.
func TestOutDirNotSyncedCountsAsWritten(t *testing.T) {
	for _, ext := range []string{".parquet", ".arrows"} {
		t.Run(ext, func(t *testing.T) {
			r := newRig(t, ext, keepPromptsOver(t))
			r.post(t, "/v1/completions", `{"model":"m","prompt":"once upon a time"}`)
			t.Cleanup(atomicfile.FailDirSync(errors.New("input/output error")))
			r.srv.Close()
			if err := r.p.Close(); !errors.Is(err, atomicfile.ErrDirNotSynced) {
				t.Errorf("Close: %v; want ErrDirNotSynced", err)
			}
			if st := r.p.Stats(); !st.Written || st.RowsLeft != "" {
				t.Errorf("Stats say written %v, rows left in %q: want the trace written", st.Written, st.RowsLeft)
			}
			if got := readFile(t, PromptsPath(r.out)); !strings.Contains(got, "once upon a time") {
				t.Errorf("prompts file %q: want this session's", got)
			}
			want := []string{"run" + ext, "run.prompts.jsonl"}
			if names := testfs.Names(t, filepath.Dir(r.out)); !slices.Equal(names, want) {
				t.Errorf("folder holds %q, want %q", names, want)
			}
		})
	}
}

// The staging name is a hard link made as the session starts: its
// directory is synced then, so that a machine crash keeps the name as the
// flushes keep the rows, and a failed sync is warned of at once, while
// the session the crash would cut short goes on.
func TestStagingLinkDirNotSyncedIsWarned(t *testing.T) {
	t.Cleanup(atomicfile.FailDirSync(errors.New("input/output error")))
	r := newRig(t, ".parquet", nil)
	logs := r.logs.String()
	if !strings.Contains(logs, "directory was not synced") || !strings.Contains(logs, "input/output error") ||
		!strings.Contains(logs, stagingPath(r.out)) {
		t.Errorf("logs:\n%s\nwant a warning that %s's directory was not synced", logs, stagingPath(r.out))
	}
	r.srv.Close()
	r.p.Close()
}

// Where the staging file cannot be linked (a file system without hard
// links), the rows go only to the trace's hidden temporary file: the
// session names it, syncs its directory so that a machine crash keeps
// it, and warns when that sync failed.
func TestStagingNotLinkedTempNamedAndSynced(t *testing.T) {
	orig := linkFile
	t.Cleanup(func() { linkFile = orig })
	linkFile = func(from, to string) error {
		return &os.LinkError{Op: "link", Old: from, New: to, Err: errors.New("operation not permitted")}
	}
	t.Cleanup(atomicfile.FailDirSync(errors.New("input/output error")))
	r := newRig(t, ".parquet", nil)
	defer r.p.Close()
	defer r.srv.Close()
	tmp := r.p.w.(interface{ TempPath() string }).TempPath()
	var named, warned bool
	for _, line := range strings.Split(r.logs.String(), "\n") {
		if strings.Contains(line, tmp) {
			named = named || strings.Contains(line, "could not be linked")
			warned = warned || (strings.Contains(line, "directory was not synced") && strings.Contains(line, "input/output error"))
		}
	}
	if !named || !warned {
		t.Errorf("logs:\n%s\nwant them to say the rows go to %s, not linked, and warn that its directory was not synced", r.logs.String(), tmp)
	}
}
