package traces

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func sampleRequests() []*Request {
	a := &Request{}
	a.Reset()
	a.ID, a.Arrival, a.PromptTokens, a.OutputTokens = "a", 0, 100, 20
	a.PrefixHashes = []uint64{1, 2, 1 << 63}
	a.SessionID, a.Class = "s1", "chat"
	b := &Request{}
	b.Reset()
	b.ID, b.Arrival, b.PromptTokens, b.OutputTokens = "b", 1_500_000_000, 7, 3
	b.Warmup = true
	b.ScheduledSend, b.ActualSend, b.FirstToken, b.LastToken = 1_500_000_000, 1_500_000_100, 1_600_000_000, 1_700_000_000
	b.TokenTimes = []int64{1_600_000_000, 1_650_000_000, 1_700_000_000}
	b.UsagePrompt, b.UsageOutput, b.UsageCached, b.Chunks, b.HTTPStatus = 27, 3, 0, 3, 200
	b.FinishReason, b.OutputText = "length", "x, \"y\"\nz"
	c := &Request{}
	c.Reset()
	c.ID, c.Arrival, c.PromptTokens, c.OutputTokens = "c", 2_000_000_000, 0, 0
	c.SourceFailed = true
	c.HTTPStatus, c.Error = 503, "server: overloaded"
	c.PrefixHashes = []uint64{}
	return []*Request{a, b, c}
}

func sampleMeta() Meta {
	m := Meta{Source: "test", Model: "m", BlockSize: 512}
	m.Set("seed", "7")
	m.SetChecksum("in.csv", "sha256:00")
	// Values CSV comments carry quoted: lines (a simulated trace's plan),
	// a leading quote, surrounding spaces.
	m.Set("plan", "[model]\n  name = \"m\"\r\n")
	m.Set("quote", `"x" y`)
	m.Set("pad", " a ")
	// A key from a newer version survives a rewrite.
	m.Unknown = map[string]string{"future_key": "1"}
	return m
}

func TestRoundTripEveryFormat(t *testing.T) {
	for _, ext := range []string{".parquet", ".arrow", ".arrows", ".csv", ".jsonl"} {
		t.Run(ext, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t"+ext)
			want := sampleRequests()
			if err := WriteAll(path, sampleMeta(), want); err != nil {
				t.Fatal(err)
			}
			meta, got, err := ReadAll(path)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(meta, sampleMeta()) {
				t.Errorf("meta = %+v, want %+v", meta, sampleMeta())
			}
			sameRows(t, got, want)
		})
	}
}

func TestMissingStaysNull(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.parquet")
	if err := WriteAll(path, Meta{}, sampleRequests()[:1]); err != nil {
		t.Fatal(err)
	}
	_, got, err := ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	r := got[0]
	if r.FirstToken != Missing || r.UsageOutput != Missing || r.HTTPStatus != Missing || r.TokenTimes != nil {
		t.Errorf("unmeasured fields were filled: %+v", r)
	}
	if _, ok := r.TTFT(); ok {
		t.Error("TTFT reported for an unmeasured request")
	}
}

func TestAbortLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(filepath.Join(dir, "t.parquet"), Meta{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(sampleRequests()[0]); err != nil {
		t.Fatal(err)
	}
	w.Abort()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("abort left %v", ents)
	}
}

func TestWriteRejectsNegative(t *testing.T) {
	dir := t.TempDir()
	r := sampleRequests()[0]
	r.PromptTokens = -5
	err := WriteAll(filepath.Join(dir, "t.csv"), Meta{}, []*Request{r})
	if err == nil || !strings.Contains(err.Error(), "prompt_tokens") {
		t.Fatalf("err = %v, want prompt_tokens complaint", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("failed write left %v", ents)
	}
}

func TestWriteRejectsArrivalAboveBound(t *testing.T) {
	dir := t.TempDir()
	rows := rowsAt(0, maxArrival, maxArrival+1)
	err := WriteAll(filepath.Join(dir, "t.parquet"), Meta{}, rows)
	if err == nil || !strings.Contains(err.Error(), "row 3: arrival_ns 4294967296000000001 is above") {
		t.Fatalf("err = %v, want row 3's arrival_ns named", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("failed write left %v", ents)
	}
}

func TestTruncatedParquet(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.parquet")
	if err := WriteAll(path, Meta{}, sampleRequests()); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := ReadAll(path)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v, want an error naming %s", err, path)
	}
}

func TestCSVErrorsNameLineAndColumn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.csv")
	os.WriteFile(path, []byte("arrival_ns,prompt_tokens,output_tokens\n0,10,5\n5,abc,5\n"), 0o644)
	_, _, err := ReadAll(path)
	if err == nil || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), "prompt_tokens") {
		t.Fatalf("err = %v", err)
	}
	os.WriteFile(path, []byte("# servesim.source=x\n# servesim.x.note=\"open\narrival_ns,prompt_tokens,output_tokens\n0,10,5\n"), 0o644)
	_, _, err = ReadAll(path)
	if err == nil || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), "servesim.x.note") {
		t.Fatalf("unterminated quoted metadata: err = %v", err)
	}
}

// sameRows fails t unless got and want hold equal rows, naming the first
// that differs.
func sameRows(t *testing.T, got, want []*Request) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("row %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

// An output in a directory that does not exist is refused naming the
// output, not the temporary file.
func TestCreateNamesMissingDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "out.parquet")
	_, err := Create(path, Meta{})
	if err == nil || err.Error() != path+": directory "+filepath.Dir(path)+" does not exist" {
		t.Errorf("err = %v", err)
	}
}
