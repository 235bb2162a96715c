package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A number an SSKV line cannot hold (llama.cpp's positions and counts are
// int32) is a damaged line, named by its file and line, not a time of 0
// or a position whose context wraps negative.
func TestReadUbatchesRefusesNumbersOutOfRange(t *testing.T) {
	for _, line := range []string{
		"SSKV t=99999999999999999999 n=2 used=0 head=0 ntok=1 seqs 0:1-1",
		"SSKV t=1 n=99999999999 used=0 head=0 ntok=1 seqs 0:1-1",
		"SSKV t=1 n=2 used=0 head=0 ntok=1 seqs 0:9223372036854775807-9223372036854775807",
		"SSKV t=1 n=2 used=0 head=0 ntok=2 seqs 0:0-9223372036854775807",
	} {
		path := filepath.Join(t.TempDir(), "engine.log")
		if err := os.WriteFile(path, []byte("SSKV t=1 n=2 used=0 head=0 ntok=1 seqs 0:1-1\n"+line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		ubs, err := readUbatches(path)
		if err == nil || !strings.Contains(err.Error(), path+": line 2:") {
			t.Errorf("%s: read %+v, err %v; want an error naming %s: line 2", line, ubs, err, path)
		}
	}
}
