package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/model"
)

const valid = `
[model]
name = "Llama-3.1-8B"
weight_version = "meta-llama/Llama-3.1-8B-Instruct"
precision = "bf16"
max_new_tokens = 1024

[batch]
strategy = "continuous"
max_num_seqs = 256
max_num_batched_tokens = 8192
chunked_prefill = true
prefix_caching = false
[device]
model = "H100-SXM-80G"
count = 1
gpu_memory_utilization = 0.9
block_size = 16
max_model_len = 8192

[cost]
usd_per_hour = 2.99
usd_per_kwh = 0.10
pue = 1.2
`

func TestParseValid(t *testing.T) {
	p, err := Parse([]byte(valid))
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Resolve(model.DefaultCatalog())
	if err != nil {
		t.Fatal(err)
	}
	if r.Capacity.KVBlocks <= 0 || r.Memory.BlockSize != 16 || r.Arch.Layers != 32 {
		t.Errorf("resolved %+v", r.Capacity)
	}
	if got := p.BatchLimit(); got != "seqs=256 tok=8192 chunked" {
		t.Errorf("BatchLimit = %q", got)
	}
}

// Two plans that differ only in prefix caching must not read the same in
// a comparison table.
func TestBatchLimitNamesPrefixCaching(t *testing.T) {
	for strategy, want := range map[string]string{
		"continuous": "seqs=256 tok=8192 chunked prefix-cache",
		"serial":     "1 prefix-cache",
	} {
		text := strings.Replace(valid, "prefix_caching = false", "prefix_caching = true", 1)
		if strategy == "serial" {
			text = strings.NewReplacer(`strategy = "continuous"`, `strategy = "serial"`, "max_num_seqs = 256\n", "",
				"max_num_batched_tokens = 8192\n", "", "chunked_prefill = true\n", "").Replace(text)
		}
		p, err := Parse([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		if got := p.BatchLimit(); got != want {
			t.Errorf("%s: BatchLimit = %q, want %q", strategy, got, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, edit, want string
	}{
		{"unknown key", strings.Replace(valid, "pue = 1.2", "pue = 1.2\npeu = 1", 1), "unknown key cost.peu"},
		{"missing required", strings.Replace(valid, "max_new_tokens = 1024", "", 1), "missing required key model.max_new_tokens"},
		{"missing strategy key", strings.Replace(valid, "chunked_prefill = true", "", 1), "batch.chunked_prefill"},
		{"fixed needs batch_size", strings.Replace(valid, `strategy = "continuous"`, `strategy = "fixed"`, 1), "batch.batch_size"},
		{"bad strategy", strings.Replace(valid, `"continuous"`, `"fifo"`, 1), `unknown strategy "fifo"`},
		{"bad precision", strings.Replace(valid, `"bf16"`, `"bf17"`, 1), "model.precision"},
		{"bad utilization", strings.Replace(valid, "0.9", "1.5", 1), "gpu_memory_utilization"},
		{"block larger than a sequence", strings.Replace(valid, "block_size = 16", "block_size = 9223372036854775807", 1),
			"device.block_size: must be in [1, device.max_model_len (8192)]"},
		{"token limit below sequence limit", strings.Replace(valid, "max_num_batched_tokens = 8192", "max_num_batched_tokens = 100", 1),
			"batch.max_num_batched_tokens: must be ≥ batch.max_num_seqs (256)"},
		{"key of another strategy", strings.Replace(valid, "chunked_prefill = true", "chunked_prefill = true\nbatch_size = 8", 1),
			`batch.batch_size: does not apply to strategy "continuous"`},
		{"negative price", strings.Replace(valid, "usd_per_hour = 2.99", "usd_per_hour = -1", 1), "cost.usd_per_hour: must be a finite price ≥ 0, got -1"},
		{"one API price", strings.Replace(valid, "pue = 1.2", "pue = 1.2\napi_output_usd_per_mtok = 0.6", 1),
			"missing required key cost.api_input_usd_per_mtok"},
		{"pue below 1", strings.Replace(valid, "pue = 1.2", "pue = 0", 1), "cost.pue: must be a finite number in [1, 100]"},
		{"memory limit nan", strings.Replace(valid, "max_model_len = 8192", "max_model_len = 8192\nmemory_limit_gib = nan", 1), "device.memory_limit_gib: must be a finite number ≥ 0"},
		{"too many sequences", strings.Replace(valid, "max_num_seqs = 256", "max_num_seqs = 40000", 1), "batch.max_num_seqs: must be ≤ 32767"},
		{"wait nan", strings.NewReplacer("max_num_seqs = 256\n", "", "max_num_batched_tokens = 8192\n", "", "chunked_prefill = true\n", "",
			`strategy = "continuous"`, "strategy = \"fixed\"\nbatch_size = 8\nmax_wait_ms = nan").Replace(valid),
			"batch.max_wait_ms: must be a finite number ≥ 0, got NaN"},
		{"wait inf", strings.NewReplacer("max_num_seqs = 256\n", "", "max_num_batched_tokens = 8192\n", "", "chunked_prefill = true\n", "",
			`strategy = "continuous"`, "strategy = \"fixed\"\nbatch_size = 8\nmax_wait_ms = inf").Replace(valid),
			"batch.max_wait_ms: must be a finite number ≥ 0, got +Inf"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.edit))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to mention %q", err, c.want)
			}
		})
	}
}

func TestResolveWeightsDoNotFit(t *testing.T) {
	p, err := Parse([]byte(strings.Replace(valid, "Llama-3.1-8B\"", "Llama-3.1-70B\"", 1)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Resolve(model.DefaultCatalog())
	if err == nil || !strings.Contains(err.Error(), "GB") {
		t.Fatalf("err = %v, want an out-of-memory error with the numbers", err)
	}
}

func TestMemoryLimit(t *testing.T) {
	p, _ := Parse([]byte(strings.Replace(valid, "count = 1", "count = 1\nmemory_limit_gib = 40", 1)))
	small, err := p.Resolve(model.DefaultCatalog())
	if err != nil {
		t.Fatal(err)
	}
	q, _ := Parse([]byte(valid))
	full, _ := q.Resolve(model.DefaultCatalog())
	if small.Capacity.KVBlocks >= full.Capacity.KVBlocks {
		t.Errorf("a 40 GiB limit kept %d blocks, full memory has %d", small.Capacity.KVBlocks, full.Capacity.KVBlocks)
	}
}

// vLLM sizes its activation reserve by profiling a step of
// max_num_batched_tokens, so a larger token limit leaves fewer KV blocks.
func TestProfileTokensShrinkKV(t *testing.T) {
	blocks := func(tokens string) int {
		p, err := Parse([]byte(strings.Replace(valid, "max_num_batched_tokens = 8192", "max_num_batched_tokens = "+tokens, 1)))
		if err != nil {
			t.Fatal(err)
		}
		r, err := p.Resolve(model.DefaultCatalog())
		if err != nil {
			t.Fatal(err)
		}
		return r.Capacity.KVBlocks
	}
	small, def, large := blocks("2048"), blocks("8192"), blocks("32768")
	// Llama-3.1-8B: (4·4096 + 3·14336) × 2 bytes = 118,784 bytes a token;
	// a 16-token bf16 block is 2 MiB.
	perBlock := float64(16 * 32 * 2 * 8 * 128 * 2)
	want := int(24576 * 118784 / perBlock)
	if small <= def || def <= large || large-def > -want+1 || large-def < -want-1 {
		t.Errorf("KV blocks at 2,048 / 8,192 / 32,768 batched tokens: %d / %d / %d; want decreasing, %d fewer at 32,768", small, def, large, want)
	}
}

// A plan that the architecture cannot serve is refused naming the plan's
// key (device.count, device.max_model_len), not the memory layout's
// internal names.
func TestResolveNamesPlanKeys(t *testing.T) {
	for _, c := range []struct{ old, new, want string }{
		{"count = 1", "count = 3", "device.count"},
		{"count = 1", "count = 64", "device.count"},
		{"max_model_len = 8192", "max_model_len = 200000", "device.max_model_len"},
		{`name = "Llama-3.1-8B"`, `name = "Llama-2-7B"`, "device.max_model_len"},
	} {
		p, err := Parse([]byte(strings.Replace(valid, c.old, c.new, 1)))
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Resolve(model.DefaultCatalog())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to name %s", c.new, err, c.want)
		}
	}
}

// A required key given as an empty string is as missing as one left out:
// weight_version would otherwise pass unrecorded into every result.
func TestParseEmptyRequiredString(t *testing.T) {
	for _, c := range []struct{ old, new, want string }{
		{`weight_version = "meta-llama/Llama-3.1-8B-Instruct"`, `weight_version = ""`, "model.weight_version"},
		{`name = "Llama-3.1-8B"`, `name = " "`, "model.name"},
		{`model = "H100-SXM-80G"`, `model = ""`, "device.model"},
	} {
		_, err := Parse([]byte(strings.Replace(valid, c.old, c.new, 1)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to name %s", c.new, err, c.want)
		}
	}
}

// writePlan writes text to a.toml in a new temporary directory and
// returns the path.
func writePlan(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "a.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A plan with several bad values is refused with one line a key, and each
// line names the file: with several --config files, the second line
// alone did not say which plan it was about.
func TestLoadNamesTheFileOnEveryLine(t *testing.T) {
	path := writePlan(t, strings.NewReplacer("max_num_seqs = 256", "max_num_seqs = 0", "pue = 1.2", "pue = 0.5").Replace(valid))
	_, err := Load(path)
	if err == nil {
		t.Fatal("a plan with max_num_seqs = 0 and pue = 0.5 was accepted")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) < 2 {
		t.Fatalf("err = %v, want one line for each bad key", err)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, path+": ") {
			t.Errorf("%q does not name the file %s", l, path)
		}
	}
}

// Keys are case-sensitive in TOML, and a plan's are lower case. The
// decoder matched them without regard to case, so a second spelling of a
// key silently replaced the value the plan showed, and one spelt alone
// was reported missing though it was there.
func TestParseRefusesAKeyInAnotherCase(t *testing.T) {
	both := strings.Replace(valid, "max_num_seqs = 256", "max_num_seqs = 256\nMax_Num_Seqs = 3", 1)
	p, err := Parse([]byte(both))
	if err == nil || !strings.Contains(err.Error(), "unknown key batch.Max_Num_Seqs") {
		t.Errorf("max_num_seqs and Max_Num_Seqs: err = %v (max_num_seqs %d), want unknown key batch.Max_Num_Seqs", err, p.Batch.MaxNumSeqs)
	}
	alone := strings.Replace(valid, "pue = 1.2", "PUE = 1.2", 1)
	if _, err := Parse([]byte(alone)); err == nil || !strings.Contains(err.Error(), "unknown key cost.PUE") {
		t.Errorf("PUE: err = %v, want unknown key cost.PUE", err)
	}
	section := strings.Replace(valid, "[cost]", "[Cost]", 1)
	if _, err := Parse([]byte(section)); err == nil || !strings.Contains(err.Error(), "unknown key Cost") {
		t.Errorf("[Cost]: err = %v, want unknown key Cost", err)
	}
}

// An unknown key and a bad value are reported at their line in the file,
// beside the file and the key.
func TestLoadNamesTheLine(t *testing.T) {
	path := writePlan(t, strings.NewReplacer("max_num_seqs = 256", "max_num_seqs = 0", "pue = 1.2", "pue = 1.2\npeu = 1").Replace(valid))
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), path+": line 25: unknown key cost.peu") {
		t.Errorf("err = %v, want %s: line 25: unknown key cost.peu", err, path)
	}
	path = writePlan(t, strings.Replace(valid, "max_num_seqs = 256", "max_num_seqs = 0", 1))
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), path+": line 10: batch.max_num_seqs: must be ≥ 1") {
		t.Errorf("err = %v, want %s: line 10: batch.max_num_seqs: must be ≥ 1", err, path)
	}
}

// A value the catalog refuses (a max_model_len past the model's context,
// a device count that cannot split its heads, an unknown device) is a bad
// value of the plan file as much as one Validate refuses, and is reported
// at its line too.
func TestResolveNamesTheLine(t *testing.T) {
	for _, c := range []struct{ from, to, want string }{
		{"max_model_len = 8192", "max_model_len = 200000", "line 19: device.max_model_len: 200000 exceeds"},
		{"count = 1", "count = 3", "line 16: device.count: 3 devices cannot split"},
		{`model = "H100-SXM-80G"`, `model = "H100"`, `line 15: device.model: model: unknown hardware "H100"`},
		{`name = "Llama-3.1-8B"`, `name = "Llama-9"`, `line 3: model.name: model: unknown architecture "Llama-9"`},
		{"max_model_len = 8192", "max_model_len = 131072\nmemory_limit_gib = 20", "line 19: device.max_model_len: one sequence of 131072 tokens"},
	} {
		path := writePlan(t, strings.Replace(valid, c.from, c.to, 1))
		p, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Resolve(model.DefaultCatalog()); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v\nwant %q", c.to, err, c.want)
		}
	}
	// A plan not read from a file has no lines to give.
	p, err := Parse([]byte(strings.Replace(valid, "max_model_len = 8192", "max_model_len = 200000", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Resolve(model.DefaultCatalog()); err == nil || !strings.HasPrefix(err.Error(), "device.max_model_len: ") {
		t.Errorf("parsed plan: err = %v, want it to start with the key", err)
	}
}

// A device with no compute figure for the plan's precision is refused
// naming model.precision at its line, as other values the catalog
// refuses are; the error named neither the key nor the plan.
func TestResolveNamesThePrecisionTheDeviceCannotRun(t *testing.T) {
	cat := model.DefaultCatalog()
	npu := "[[hardware]]\nname = \"npu\"\nmemory_bytes = 8e10\nbandwidth_bytes_per_sec = 1e12\ntdp_watts = 100\nidle_watts = 10\nprice_per_hour = 1\n[hardware.flops]\nint8 = 4e14\n"
	if err := cat.LoadTOMLData([]byte(npu), "npu.toml"); err != nil {
		t.Fatal(err)
	}
	path := writePlan(t, strings.NewReplacer(`model = "H100-SXM-80G"`, `model = "npu"`).Replace(valid))
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Resolve(cat); err == nil || !strings.HasPrefix(err.Error(), "line 5: model.precision: ") || !strings.Contains(err.Error(), "no bf16 compute figure") {
		t.Errorf("err = %v\nwant line 5: model.precision: ... no bf16 compute figure", err)
	}
}

// Without chunked prefill vLLM refuses to start with max_num_batched_tokens
// below max_model_len: a longer prompt could never be scheduled.
func TestLoadRefusesBatchedTokensBelowModelLenUnchunked(t *testing.T) {
	path := writePlan(t, strings.NewReplacer("chunked_prefill = true", "chunked_prefill = false", "max_num_batched_tokens = 8192", "max_num_batched_tokens = 4096").Replace(valid))
	_, err := Load(path)
	for _, w := range []string{path + ": line 11: batch.max_num_batched_tokens:", "device.max_model_len (8192)", "chunked_prefill", "got 4096"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("err = %v, want it to name %q", err, w)
		}
	}
	// With chunked prefill, or a budget of max_model_len, it is fine.
	for _, ok := range []string{
		strings.Replace(valid, "max_num_batched_tokens = 8192", "max_num_batched_tokens = 4096", 1),
		strings.Replace(valid, "chunked_prefill = true", "chunked_prefill = false", 1),
	} {
		if _, err := Parse([]byte(ok)); err != nil {
			t.Errorf("Parse: %v", err)
		}
	}
}

// vLLM's profiling pass ends in the sampler, which holds fp32 logits of
// the whole vocabulary for each of max_num_seqs sequences: more sequence
// slots leave less KV cache, by max_num_seqs × vocab × 4 bytes.
func TestMaxNumSeqsReservesSamplerLogits(t *testing.T) {
	reserve := func(seqs string) float64 {
		p, err := Parse([]byte(strings.Replace(valid, "max_num_seqs = 256", "max_num_seqs = "+seqs, 1)))
		if err != nil {
			t.Fatal(err)
		}
		r, err := p.Resolve(model.DefaultCatalog())
		if err != nil {
			t.Fatal(err)
		}
		return r.Capacity.ActivationReserveBytes
	}
	// Llama-3.1-8B's vocabulary is 128,256 tokens: 2,048 sequences hold
	// 1 GB of logits, 1 sequence half a megabyte.
	got, want := reserve("2048")-reserve("1"), 2047*128256*4.0
	if got != want {
		t.Errorf("reserve at 2,048 sequences less at 1: %.0f bytes, want %.0f (2,047 × vocab 128,256 × 4)", got, want)
	}
}
