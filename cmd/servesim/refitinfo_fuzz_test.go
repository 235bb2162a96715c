package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/traces"
)

// FuzzRefitInfo: refitInfo reads what a second trace's metadata says
// (engine arguments, tensor-parallel degree, block size, reported KV
// capacity) beside a first trace that says it well. It never panics; an
// error names the second trace; and on success the engine is told what
// the first trace says, which the second agreed with or left unsaid,
// and the KV capacity the second reported.
// Seeds: testdata/fuzz/FuzzRefitInfo.
func FuzzRefitInfo(f *testing.F) {
	const args = `["--max-model-len","4096","--chat-template","{{ a b }}"]`
	f.Add(args, "2", "16", "")
	f.Add("", "", "", "")
	f.Add(`["--max-model-len"]`, "02", "sixteen", `{"blocks":100}`)
	f.Add("--max-model-len 4096", "-2", "0", "null")
	f.Fuzz(func(t *testing.T, engineArgs, tp, blockSize, reportedKV string) {
		run := func(path string, kv ...string) *calibrate.RunResult {
			var m traces.Meta
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i+1] != "" {
					m.Set(kv[i], kv[i+1])
				}
			}
			return &calibrate.RunResult{Meta: m, Trace: &calibrate.TraceRef{Path: path}}
		}
		runs := []*calibrate.RunResult{
			run("a.parquet", calibrate.EngineArgsKey, args, calibrate.TensorParallelKey, "2", calibrate.KVBlockSizeKey, "16"),
			run("b.parquet", calibrate.EngineArgsKey, engineArgs, calibrate.TensorParallelKey, tp,
				calibrate.KVBlockSizeKey, blockSize, calibrate.ReportedKVKey, reportedKV),
		}
		info, err := refitInfo(calibrate.EngineInfo{}, runs)
		if err != nil {
			if !strings.Contains(err.Error(), "b.parquet") {
				t.Fatalf("refitInfo: the error does not name the trace whose metadata it refuses: %v", err)
			}
			return
		}
		if info.TensorParallel != 2 || info.BlockSize != 16 {
			t.Fatalf("refitInfo: tensor parallel %d, block size %d; want the first trace's 2 and 16", info.TensorParallel, info.BlockSize)
		}
		if want := []string{"--max-model-len", "4096", "--chat-template", "{{ a b }}"}; !slices.Equal(info.EngineArgs, want) {
			t.Fatalf("refitInfo: engine args %q, want the first trace's %q", info.EngineArgs, want)
		}
		// Only the second trace says what the engine reported: refitInfo
		// keeps it as read, or nothing where it is unsaid.
		switch want, _ := calibrate.ParseReportedKV(reportedKV); {
		case reportedKV == "" && info.ReportedKV != nil:
			t.Fatalf("refitInfo: reported KV %+v, but no trace says one", *info.ReportedKV)
		case reportedKV != "" && (info.ReportedKV == nil || want == nil || *info.ReportedKV != *want):
			t.Fatalf("refitInfo: reported KV %v, want %s as the second trace says", info.ReportedKV, reportedKV)
		}
	})
}
