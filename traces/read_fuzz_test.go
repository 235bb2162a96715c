package traces

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The binary fuzz targets write arbitrary bytes to a file with a Parquet or
// Arrow IPC extension and read it as servesim's own format through Import,
// as the command line does. The property: no panic, and either an error
// that names the file or rows that pass checkFuzzRows. Seeds (valid files
// from the package's writer, a truncated one and one with a flipped byte)
// live in testdata/fuzz/<FuzzName>/.

// fuzzHang is how long one input may take. Go's fuzzing engine has no
// per-input limit, so a hang would only stall the run: the watchdog
// crashes the worker instead, with every goroutine's stack, and the engine
// saves the input.
const fuzzHang = 10 * time.Second

func watchdog() (stop func() bool) {
	return time.AfterFunc(fuzzHang, func() {
		buf := make([]byte, 1<<20)
		panic("input took over " + fuzzHang.String() + ":\n" + string(buf[:runtime.Stack(buf, true)]))
	}).Stop
}

func fuzzServesimFile(t *testing.T, data []byte, ext string) {
	path := filepath.Join(t.TempDir(), "t"+ext)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Import(path, FormatServesim, ImportOptions{})
	if err != nil {
		checkFuzzErr(t, path, "open", err)
		return
	}
	checkFuzzErr(t, path, "read", checkFuzzRows(t, r))
}

// checkFuzzErr fails unless err is nil or names the file.
func checkFuzzErr(t *testing.T, path, what string, err error) {
	t.Helper()
	if err != nil && !strings.Contains(err.Error(), path) {
		t.Fatalf("%s error does not name the file: %v", what, err)
	}
}

func FuzzReadParquet(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		defer watchdog()()
		fuzzServesimFile(t, data, ".parquet")
	})
}

// FuzzReadArrowIPC covers both the IPC file and stream formats (Open tells
// them apart by the file's magic) and, for streams, OpenTolerant.
func FuzzReadArrowIPC(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		defer watchdog()()
		fuzzServesimFile(t, data, ".arrows")
		if bytes.HasPrefix(data, []byte("ARROW1")) {
			return
		}
		path := filepath.Join(t.TempDir(), "t.arrows")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := OpenTolerant(path)
		if err != nil {
			checkFuzzErr(t, path, "OpenTolerant", err)
			return
		}
		checkFuzzErr(t, path, "OpenTolerant read", checkFuzzRows(t, CheckOrder(r, path)))
	})
}
