package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// An import that leaves no request is refused, as a slice keeping none
// is, and nothing is written: an empty trace would only fail later, far
// from the cause.
func TestTraceImportLeavingNothingIsRefused(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, body string
		flags      []string
		want       string
	}{
		{"vidur.csv", "arrived_at,num_prefill_tokens,num_decode_tokens\n", nil, "holds no request"},
		{"share.json", "[]\n", []string{"--rate", "1"}, "holds no request"},
		{"burst.csv", "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n1,ChatGPT,10,0,10,Conversation log\n2,ChatGPT,5,0,5,Conversation log\n",
			[]string{"--drop-failed"}, "every request is marked failed, and --drop-failed dropped them all"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := filepath.Join(dir, tc.name)
			if err := os.WriteFile(in, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out.parquet")
			_, err := run(t, append(append([]string{"trace", "import"}, tc.flags...), in, out)...)
			if err == nil || !strings.Contains(err.Error(), "import "+in) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want the input named and %q", err, tc.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("an empty trace was written to %s", out)
			}
		})
	}
	// Failed rows kept are requests still.
	in := filepath.Join(dir, "burst.csv")
	if _, err := run(t, "trace", "import", in, filepath.Join(dir, "kept.parquet")); err != nil {
		t.Errorf("failed rows kept: %v", err)
	}
}

// The reason given for an empty import is this import's --drop-failed,
// not an earlier one recorded in the input's metadata: a servesim trace
// that holds no row, imported without the flag, dropped nothing.
func TestTraceImportEmptyNamesOnlyItsOwnDropFailed(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "empty.jsonl")
	var meta traces.Meta
	meta.Set("drop_failed", "true")
	if err := traces.WriteAll(in, meta, nil); err != nil {
		t.Fatal(err)
	}
	_, err := run(t, "trace", "import", in, filepath.Join(dir, "out.parquet"))
	if err == nil || !strings.Contains(err.Error(), "holds no request") || strings.Contains(err.Error(), "--drop-failed dropped") {
		t.Errorf("err = %v, want \"holds no request\" and no word of --drop-failed", err)
	}
}

// An empty file imported with --drop-failed dropped nothing: the reason
// given is its emptiness, even where its metadata records an earlier
// drop, and for a header-only BurstGPT file alike.
func TestTraceImportEmptyWithDropFailedBlamesNoFailedRow(t *testing.T) {
	dir := t.TempDir()
	own := filepath.Join(dir, "empty.jsonl")
	var meta traces.Meta
	meta.Set("drop_failed", "true")
	if err := traces.WriteAll(own, meta, nil); err != nil {
		t.Fatal(err)
	}
	burst := filepath.Join(dir, "burst.csv")
	if err := os.WriteFile(burst, []byte("Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{own, burst} {
		_, err := run(t, "trace", "import", "--drop-failed", in, filepath.Join(dir, "out.parquet"))
		if err == nil || !strings.Contains(err.Error(), "holds no request") || strings.Contains(err.Error(), "marked failed") {
			t.Errorf("%s: err = %v, want \"holds no request\" and no word of failed rows", in, err)
		}
	}
}

// Where the second look for failed rows fails (the file gone since it was
// read), the error names the file once: the source's own error already
// names it.
func TestImportNotEmptyNamesTheFileOnceWhenTheSecondReadFails(t *testing.T) {
	in := filepath.Join(t.TempDir(), "burst.csv")
	if err := os.WriteFile(in, []byte("Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opt := traces.ImportOptions{DropFailed: true}
	r, err := traces.Import(in, traces.FormatBurstGPT, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := os.Remove(in); err != nil {
		t.Fatal(err)
	}
	ne := importNotEmpty(in, traces.FormatBurstGPT, opt, r)
	for ne.Next() {
	}
	err = ne.Err()
	if err == nil || strings.Count(err.Error(), in) != 1 {
		t.Errorf("err = %v, want %s named once", err, in)
	}
}
