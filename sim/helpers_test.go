package sim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// sliceReader streams requests from memory.
type sliceReader struct {
	meta traces.Meta
	reqs []*traces.Request
	i    int
	cur  traces.Request
}

func newSliceReader(reqs []*traces.Request) *sliceReader {
	return &sliceReader{reqs: reqs, i: -1}
}

func (r *sliceReader) Meta() traces.Meta { return r.meta }
func (r *sliceReader) Len() int          { return len(r.reqs) }
func (r *sliceReader) Next() bool {
	r.i++
	if r.i >= len(r.reqs) {
		return false
	}
	r.cur = *r.reqs[r.i]
	return true
}
func (r *sliceReader) At() *traces.Request { return &r.cur }
func (r *sliceReader) Err() error          { return nil }
func (r *sliceReader) Close() error        { return nil }

// memWriter keeps copies of the rows written, by input id.
type memWriter struct {
	rows []*traces.Request
	byID map[string]*traces.Request
}

func (w *memWriter) Write(r *traces.Request) error {
	c := r.Clone()
	w.rows = append(w.rows, c)
	if w.byID == nil {
		w.byID = map[string]*traces.Request{}
	}
	w.byID[c.ID] = c
	return nil
}
func (w *memWriter) Close() error { return nil }
func (w *memWriter) Abort()       {}

// bytes renders every row, in write order, for byte-for-byte comparisons.
func (w *memWriter) bytes() []byte {
	var b bytes.Buffer
	for _, r := range w.rows {
		fmt.Fprintf(&b, "%+v\n", *r)
	}
	return b.Bytes()
}

// req builds an input row: id, arrival in ms, prompt and output tokens.
func req(id string, arrivalMs float64, prompt, out int32, hashes ...uint64) *traces.Request {
	r := &traces.Request{}
	r.Reset()
	r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = id, int64(arrivalMs*1e6), prompt, out
	r.PrefixHashes = hashes
	return r
}

// testTimer: 10 ms per step plus 1 ms per prefill token and 1 ms per decode
// sequence, so hand computations stay simple.
var testTimer = Linear{C0: 10e-3, Cp: 1e-3, Cd: 1e-3}

// realTimer resembles an 8B model on one H100.
var realTimer = Linear{C0: 6e-3, Cp: 2.5e-5, Ca: 1e-10, Cd: 5e-5, Ck: 4e-8}

// fastTimer is a larger device (a TP group), for the long Mooncake prompts.
var fastTimer = Linear{C0: 4e-3, Cp: 4e-6, Ca: 2e-11, Cd: 2e-5, Ck: 1e-8}

var realRoofline = Roofline{
	FLOPS: 0.7 * 989e12, BandwidthBytesPerSec: 0.85 * 3.35e12, WeightBytes: 16e9,
	KVBytesPerToken: 131072, FLOPsPerToken: 16e9, AttnFLOPsPerQueryCtx: 4 * 32 * 128 * 32, OverheadSec: 2e-3,
}

func run(t testing.TB, cfg Config, reqs []*traces.Request) (*Summary, *memWriter, error) {
	t.Helper()
	w := &memWriter{}
	sum, err := Run(t.Context(), cfg, newSliceReader(reqs), w)
	return sum, w, err
}

func mustRun(t testing.TB, cfg Config, reqs []*traces.Request) (*Summary, *memWriter) {
	t.Helper()
	sum, w, err := run(t, cfg, reqs)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return sum, w
}

func policy(t testing.TB, name string) PolicyConfig {
	t.Helper()
	p, err := ParsePolicy(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// repoTestdata finds the repository's testdata/ folder. Its traces are
// committed: one missing is a broken tree, and the real-trace tests fail
// rather than skip.
func repoTestdata(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join("..", "testdata", rel)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s not present: %v", p, err)
	}
	return p
}

// loadAzure parses the Azure LLM inference trace CSV
// (TIMESTAMP,ContextTokens,GeneratedTokens), arrivals relative to the first row.
func loadAzure(t testing.TB, rel string) []*traces.Request {
	t.Helper()
	f, err := os.Open(repoTestdata(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var out []*traces.Request
	var t0 time.Time
	for line := 0; sc.Scan(); line++ {
		if line == 0 {
			continue
		}
		parts := strings.Split(sc.Text(), ",")
		if len(parts) != 3 {
			t.Fatalf("line %d: %q", line+1, sc.Text())
		}
		ts, err := time.Parse("2006-01-02 15:04:05.9999999", parts[0])
		if err != nil {
			t.Fatalf("line %d: %v", line+1, err)
		}
		if line == 1 {
			t0 = ts
		}
		p, err1 := strconv.Atoi(parts[1])
		o, err2 := strconv.Atoi(parts[2])
		if err1 != nil || err2 != nil {
			t.Fatalf("line %d: %q", line+1, sc.Text())
		}
		r := req(strconv.Itoa(line-1), 0, int32(p), int32(o))
		r.Arrival = ts.Sub(t0).Nanoseconds()
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// loadMooncake parses the Mooncake JSONL trace (timestamp ms, input_length,
// output_length, hash_ids of 512-token blocks).
func loadMooncake(t testing.TB, rel string) []*traces.Request {
	t.Helper()
	f, err := os.Open(repoTestdata(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var out []*traces.Request
	for line := 0; sc.Scan(); line++ {
		var row struct {
			Timestamp int64    `json:"timestamp"`
			Input     int32    `json:"input_length"`
			Output    int32    `json:"output_length"`
			Hashes    []uint64 `json:"hash_ids"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatalf("line %d: %v", line+1, err)
		}
		r := req(strconv.Itoa(line), float64(row.Timestamp), row.Input, row.Output, row.Hashes...)
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// mooncakeReader wraps rows with the 512-token hash block size in Meta.
func mooncakeReader(reqs []*traces.Request) *sliceReader {
	r := newSliceReader(reqs)
	r.meta.BlockSize = 512
	return r
}

// runHalfPoweredCluster runs a small workload over two pools of
// 2-device replicas: pool a's two draw 100 W + 500 W × utilization per
// device, pool b's three have no power model.
func runHalfPoweredCluster(t *testing.T) *ClusterSummary {
	t.Helper()
	cfg := Config{Policy: policy(t, Continuous), BlockSize: 16, TotalBlocks: 300, Step: realTimer, Devices: 2,
		Power: func(u float64) float64 { return 100 + 500*u }}
	noPower := cfg
	noPower.Power = nil
	cc := ClusterConfig{Threshold: 400, Pools: []PoolConfig{
		{Name: "a", Replicas: 2, Router: RoundRobin, Replica: cfg},
		{Name: "b", Replicas: 3, Router: RoundRobin, Replica: noPower},
	}}
	sum, _ := mustRunCluster(t, cc, newSliceReader(synthWorkload(3, 200, 5)))
	return sum
}
