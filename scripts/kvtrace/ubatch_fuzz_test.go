package main

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// FuzzReadUbatches: an engine log either fails with an error that names
// the file and a line, or gives ubatches whose counts are ≥ 0 and whose
// attention terms are finite and ≥ 0; and the engine's other output, on
// lines of its own between the SSKV lines, changes nothing read.
// Seeds: testdata/fuzz/FuzzReadUbatches.
func FuzzReadUbatches(f *testing.F) {
	f.Fuzz(func(t *testing.T, log string) {
		dir := t.TempDir()
		path := filepath.Join(dir, "engine.log")
		if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
			t.Fatal(err)
		}
		ubs, err := readUbatches(path)
		if err != nil {
			if !strings.HasPrefix(err.Error(), path+": line ") {
				t.Fatalf("error %q does not name the file and line", err)
			}
			return
		}
		for i, u := range ubs {
			if u.cells < 0 || u.tokens < 0 || u.prefill < 0 || u.decode < 0 ||
				!(u.prefillAttn >= 0) || math.IsInf(u.prefillAttn, 0) || !(u.decodeContext >= 0) || math.IsInf(u.decodeContext, 0) {
				t.Fatalf("ubatch %d: %+v: want counts ≥ 0 and finite terms ≥ 0", i, u)
			}
		}
		noisy := filepath.Join(dir, "noisy.log")
		noise := "[GIN] 200 | POST \"/api/generate\" 1:2-3\n"
		if err := os.WriteFile(noisy, []byte(noise+strings.ReplaceAll(log, "\n", "\n"+noise)), 0o644); err != nil {
			t.Fatal(err)
		}
		again, err := readUbatches(noisy)
		if err != nil || !reflect.DeepEqual(again, ubs) {
			t.Fatalf("with other output between its lines: %+v, %v; want %+v", again, err, ubs)
		}
	})
}
