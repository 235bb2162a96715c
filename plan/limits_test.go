package plan

import (
	"math"
	"strings"
	"testing"
)

// A plan that parses is one the simulator takes: values it would refuse
// are refused here, naming the plan's key rather than a simulator field.
func TestParseRefusesWhatTheSimulatorRefuses(t *testing.T) {
	budget := strings.NewReplacer("max_num_seqs = 256\n", "", "max_num_batched_tokens = 8192\n", "", "chunked_prefill = true\n", "",
		`strategy = "continuous"`, "strategy = \"token_budget\"\nmax_token_budget = 1\nmax_wait_ms = 5").Replace(valid)
	for _, c := range []struct{ name, text, want string }{
		{"token budget of one token", budget, "batch.max_token_budget: must be ≥ 1025"},
		{"batch window beyond 2^32 s", strings.NewReplacer("max_token_budget = 1\n", "max_token_budget = 100\n", "max_wait_ms = 5", "max_wait_ms = 1e300").Replace(budget),
			"batch.max_wait_ms: must be at most 4294967296000"},
		{"output cap beyond int32", strings.Replace(valid, "max_new_tokens = 1024", "max_new_tokens = 3000000000", 1),
			"model.max_new_tokens: must be ≤ 2147483647"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.text))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to mention %q", err, c.want)
			}
		})
	}
}

// A cluster the simulator cannot lay out is refused with the key, not
// left to crash the run (2^62 replicas panicked making the router's
// per-replica table).
func TestParseRefusesAnImpossibleCluster(t *testing.T) {
	for _, c := range []struct{ section, want string }{
		{"replicas = 4611686018427387904\nrouter = \"round_robin\"\n", "cluster.replicas: must be ≤ 32767"},
		{"replicas = 2\nrouter = \"round_robin\"\nsplit_tokens = 100\nlong_replicas = 4611686018427387904\n", "cluster.long_replicas: must be ≤ 32767"},
	} {
		_, err := Parse([]byte(withCluster(c.section)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want it to mention %q", c.section, err, c.want)
		}
	}
}

// Every request of a static batch reserves its prompt (at least one
// token) and max_new_tokens: a token budget below 1 + max_new_tokens can
// hold no request, and the run rejected every one of them (0/400 served).
func TestParseRefusesATokenBudgetNoRequestFits(t *testing.T) {
	plan := func(budget string) string {
		return strings.NewReplacer("max_num_seqs = 256\n", "", "max_num_batched_tokens = 8192\n", "", "chunked_prefill = true\n", "",
			`strategy = "continuous"`, "strategy = \"token_budget\"\nmax_token_budget = "+budget+"\nmax_wait_ms = 5").Replace(valid)
	}
	_, err := Parse([]byte(plan("1000"))) // max_new_tokens = 1024
	want := "batch.max_token_budget: must be ≥ 1025 (1 + model.max_new_tokens"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("budget 1000: err = %v, want it to mention %q", err, want)
	}
	if _, err := Parse([]byte(plan("1025"))); err != nil {
		t.Errorf("budget 1025 holds a 1-token prompt and 1024 new tokens: %v", err)
	}
	// No reservation runs past max_model_len (8192).
	huge := strings.Replace(plan("8191"), "max_new_tokens = 1024", "max_new_tokens = 100000", 1)
	want = "batch.max_token_budget: must be ≥ 8192 (device.max_model_len"
	if _, err := Parse([]byte(huge)); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("budget 8191, max_new_tokens 100000: err = %v, want it to mention %q", err, want)
	}
	if _, err := Parse([]byte(strings.Replace(huge, "max_token_budget = 8191", "max_token_budget = 8192", 1))); err != nil {
		t.Errorf("budget 8192 holds a max_model_len reservation: %v", err)
	}
}

// A price no deployment charges is refused at its key: 1e308 $/h was
// accepted, and a run's cost overflowed to +Inf, which summary.json
// cannot hold.
func TestParseRefusesAnAbsurdPrice(t *testing.T) {
	for _, c := range []struct{ from, to, want string }{
		{"usd_per_hour = 2.99", "usd_per_hour = 1e308", "cost.usd_per_hour: must be a price ≤ 1000000, got 1e+308"},
		{"usd_per_kwh = 0.10", "usd_per_kwh = 1e300", "cost.usd_per_kwh: must be a price ≤ 1000000, got 1e+300"},
	} {
		_, err := Parse([]byte(strings.Replace(valid, c.from, c.to, 1)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", c.to, err, c.want)
		}
	}
}

// A max_model_len below one token is refused on its own: the block size
// it is no bound for is not refused beside it ("device.block_size: must
// be in [1, device.max_model_len (0)], got 16").
func TestParseRefusesAZeroModelLenAlone(t *testing.T) {
	_, err := Parse([]byte(strings.Replace(valid, "max_model_len = 8192", "max_model_len = 0", 1)))
	if err == nil || !strings.Contains(err.Error(), "device.max_model_len: must be ≥ 1, got 0") {
		t.Fatalf("err = %v, want device.max_model_len refused", err)
	}
	if strings.Contains(err.Error(), "device.block_size") {
		t.Errorf("err = %v\nnames device.block_size, which is fine on its own", err)
	}
}

// A tensor-parallel degree no deployment reaches is refused at its line:
// 2^62 devices passed, and device.count × replicas wrapped around int.
func TestLoadRefusesAnImpossibleDeviceCount(t *testing.T) {
	path := writePlan(t, strings.Replace(valid, "count = 1", "count = 4611686018427387904", 1))
	want := path + ": line 16: device.count: must be ≤ 1048576, got 4611686018427387904"
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %s", err, want)
	}
	if _, err := Parse([]byte(strings.Replace(valid, "count = 1", "count = 1048576", 1))); err != nil {
		t.Errorf("count 2^20: %v", err)
	}
}

// A sweep reads Replicas from a decoded plan before Validate refuses it:
// a short and a long pool past int together is math.MaxInt, as Devices
// saturates, not a wrapped negative count that passes every limit.
func TestReplicasSaturatesPastInt(t *testing.T) {
	p := &Plan{Device: Device{Count: 1}, Cluster: &Cluster{Replicas: math.MaxInt, LongReplicas: 2, SplitTokens: 100, Router: "round_robin"}}
	if got := p.Replicas(); got != math.MaxInt {
		t.Errorf("Replicas() = %d, want math.MaxInt", got)
	}
	if got := p.Devices(); got != math.MaxInt {
		t.Errorf("Devices() = %d, want math.MaxInt", got)
	}
}

// A fixed batch is sequences run at once, bounded as max_num_seqs is:
// 2^62 passed, showed as B=4611686018427387904 in the table, and verify's
// warm-up size (batch × longest request) wrapped around int.
func TestParseRefusesAnImpossibleBatchSize(t *testing.T) {
	fixed := func(size string) string {
		return strings.NewReplacer("max_num_seqs = 256\n", "", "max_num_batched_tokens = 8192\n", "", "chunked_prefill = true\n", "",
			`strategy = "continuous"`, "strategy = \"fixed\"\nbatch_size = "+size+"\nmax_wait_ms = 5").Replace(valid)
	}
	want := "batch.batch_size: must be ≤ 32767, got 4611686018427387904"
	if _, err := Parse([]byte(fixed("4611686018427387904"))); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want it to mention %q", err, want)
	}
	if _, err := Parse([]byte(fixed("32767"))); err != nil {
		t.Errorf("batch_size 32767: %v", err)
	}
}
