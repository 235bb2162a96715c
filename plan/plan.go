// Package plan reads a measurement plan: the TOML file that fixes every
// controlled variable of a simulated (or live) run — model, batch policy,
// device and prices — and resolves it against the model catalog.
//
// A plan has no implicit defaults for controlled variables: a missing
// required key or an unknown key is an error that names the file and key.
// The [cluster] section is optional: without it a plan is one replica of
// the [device] deployment; with it, replicas and router are required.
package plan

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/servesim/servesim/internal/tomlkeys"
	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/sim"
)

// Plan is one measurement plan.
type Plan struct {
	Model  Model  `toml:"model"`
	Batch  Batch  `toml:"batch"`
	Device Device `toml:"device"`
	Cost   Cost   `toml:"cost"`
	// Cluster is the optional [cluster] section; nil means one replica.
	Cluster *Cluster `toml:"cluster,omitempty"`

	// text is the file Load read the plan from, so that Resolve can give
	// the line of a value the catalog refuses; "" for a plan not read
	// from a file.
	text string
	// prefixCachingUnset marks a stored plan (ParseStored) written before
	// batch.prefix_caching was required: it ran with it off, and its
	// BatchLimit says the key is unset.
	prefixCachingUnset bool
}

// Model is the [model] section.
type Model struct {
	Name          string `toml:"name"`
	WeightVersion string `toml:"weight_version"`
	Precision     string `toml:"precision"`
	// MaxNewTokens caps every request's output; static policies reserve
	// prompt + MaxNewTokens of KV cache per request.
	MaxNewTokens int `toml:"max_new_tokens"`
}

// Batch is the [batch] section: the scheduler policy and its limits.
type Batch struct {
	Strategy            string  `toml:"strategy"` // serial | fixed | token_budget | continuous
	BatchSize           int     `toml:"batch_size"`
	MaxWaitMS           float64 `toml:"max_wait_ms"`
	MaxTokenBudget      int     `toml:"max_token_budget"`
	MaxNumSeqs          int     `toml:"max_num_seqs"`
	MaxNumBatchedTokens int     `toml:"max_num_batched_tokens"`
	ChunkedPrefill      bool    `toml:"chunked_prefill"`
	PrefixCaching       bool    `toml:"prefix_caching"`
}

// Device is the [device] section.
type Device struct {
	Model                string  `toml:"model"`
	Count                int     `toml:"count"` // tensor-parallel degree of one replica
	MemoryLimitGiB       float64 `toml:"memory_limit_gib"`
	GPUMemoryUtilization float64 `toml:"gpu_memory_utilization"`
	BlockSize            int     `toml:"block_size"`
	MaxModelLen          int     `toml:"max_model_len"`
}

// Cost is the [cost] section. API prices are optional: without them only
// the estimated (device-seconds) basis is reported.
type Cost struct {
	USDPerHour          float64 `toml:"usd_per_hour"`
	USDPerKWh           float64 `toml:"usd_per_kwh"`
	PUE                 float64 `toml:"pue"`
	APIInputUSDPerMTok  float64 `toml:"api_input_usd_per_mtok"`
	APIOutputUSDPerMTok float64 `toml:"api_output_usd_per_mtok"`
}

// Cluster is the optional [cluster] section: replicas of the [device]
// deployment behind a router, optionally split into a short and a long
// pool by request length. Without it a plan is one replica.
type Cluster struct {
	Replicas int    `toml:"replicas"` // replicas (of the short pool, with a split)
	Router   string `toml:"router"`   // round_robin | least_outstanding | prefix_affinity
	// SplitTokens and LongReplicas come together: requests of at most
	// SplitTokens tokens (prompt + output, the output capped by
	// model.max_new_tokens, or the prompt alone with SplitOnPrompt) go to
	// the Replicas pool, longer ones to a pool of LongReplicas replicas of
	// the same plan. 0 = no split.
	SplitTokens   int  `toml:"split_tokens,omitempty"`
	LongReplicas  int  `toml:"long_replicas,omitempty"`
	SplitOnPrompt bool `toml:"split_on_prompt,omitempty"`
}

// Strategies lists the batch strategies and the keys each one requires.
// Every strategy requires prefix_caching: the simulator shares prompt
// blocks under each of them, and engines differ in their default (vLLM
// v1 turns it on), so leaving it out would measure an engine unsaid.
var Strategies = map[string][]string{
	"serial":       {"prefix_caching"},
	"fixed":        {"batch_size", "max_wait_ms", "prefix_caching"},
	"token_budget": {"max_token_budget", "max_wait_ms", "prefix_caching"},
	"continuous":   {"max_num_seqs", "max_num_batched_tokens", "chunked_prefill", "prefix_caching"},
}

// MaxPrice bounds every price (USD per device-hour, per kWh, per 1M
// tokens): far above any real one, and low enough that a run's cost
// stays finite (one past it overflowed to +Inf, which JSON cannot hold).
const MaxPrice = 1e6

// MaxPUE bounds cost.pue: far above any facility's, and low enough that
// the energy cost at MaxPrice per kWh stays finite (it multiplies it).
const MaxPUE = 100.0

// MaxSeqs bounds the sequences a batch runs at once (batch.max_num_seqs,
// batch.batch_size): the simulator's sequence slots, and low enough that
// a batch's tokens (sequences × the longest request) fit an int.
const MaxSeqs = math.MaxInt16

// MaxReplicas bounds cluster.replicas and cluster.long_replicas.
const MaxReplicas = math.MaxInt16

// MaxDeviceCount bounds device.count: far past any tensor-parallel
// degree, and low enough that device.count × every replica fits an int.
const MaxDeviceCount = 1 << 20

// always-required keys, by section.
var required = []string{
	"model.name", "model.weight_version", "model.precision", "model.max_new_tokens",
	"batch.strategy",
	"device.model", "device.count", "device.gpu_memory_utilization", "device.block_size", "device.max_model_len",
	"cost.usd_per_hour", "cost.usd_per_kwh", "cost.pue",
}

// missingHint follows a required key's name where a missing one needs
// more than the name: prefix_caching became required after plans were
// written without it.
var missingHint = map[string]string{
	"batch.prefix_caching": " (every strategy: true or false; plans written before it was required ran with false)",
}

// Load reads and validates a plan file.
func Load(path string) (*Plan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p, err := Parse(data)
	if err != nil {
		// Decode and Validate join one error a key: each line names the
		// file, and a bad value its line in it.
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			md, _ := toml.Decode(string(data), &Plan{}) // it decoded before
			errs := slices.Clone(j.Unwrap())
			for i, e := range errs {
				var fe *FieldError
				if errors.As(e, &fe) {
					if n := tomlkeys.Line(string(data), md, strings.Split(fe.Key, ".")); n > 0 {
						errs[i] = fmt.Errorf("%s: line %d: %w", path, n, e)
						continue
					}
				}
				errs[i] = fmt.Errorf("%s: %w", path, e)
			}
			return nil, errors.Join(errs...)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p.text = string(data)
	return p, nil
}

// atLine puts the line of key in the plan's file before err, as Load
// gives the line of a value Validate refuses.
func (p *Plan) atLine(key string, err error) error {
	if p.text == "" {
		return err
	}
	md, _ := toml.Decode(p.text, &Plan{}) // it decoded before
	return tomlkeys.AtLine(p.text, md, strings.Split(key, "."), err)
}

// Parse decodes and validates a plan.
func Parse(data []byte) (*Plan, error) {
	return parse(data, false)
}

// ParseStored parses a plan a results file stored, for display only: a
// plan written before batch.prefix_caching was required is taken with it
// off (as it ran), and its BatchLimit marks the key unset. A plan that is
// to run again goes through Parse, which refuses it (see
// LacksPrefixCaching).
func ParseStored(data []byte) (*Plan, error) {
	return parse(data, true)
}

// parse is Parse; stored lets batch.prefix_caching be missing (see decode).
func parse(data []byte, stored bool) (*Plan, error) {
	p, err := decode(data, stored)
	if err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// LacksPrefixCaching reports whether data is a plan stored before
// batch.prefix_caching was required and at fault in nothing else: Parse
// refuses it, and the fix is to add prefix_caching = false to its [batch]
// (the value it ran with) or to run the sweep again. A plan that fails
// for another reason too is not one: the key alone would not make it run.
func LacksPrefixCaching(data []byte) bool {
	p, err := ParseStored(data)
	return err == nil && p.prefixCachingUnset
}

// Decode decodes a plan, refusing unknown and missing keys, without
// checking value ranges (Validate): a sweep skips the configurations its
// constraints exclude before it judges the rest.
func Decode(data []byte) (*Plan, error) {
	return decode(data, false)
}

// decode is Decode; stored lets batch.prefix_caching be missing, as in
// plans written before it was required.
func decode(data []byte, stored bool) (*Plan, error) {
	var p Plan
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&p)
	if err != nil {
		return nil, err
	}
	// One error a key, each at its line (Load names the file).
	var unknown []error
	for _, u := range tomlkeys.Unknown(string(data), md, &p) {
		unknown = append(unknown, errors.New(u))
	}
	if len(unknown) > 0 {
		return nil, errors.Join(unknown...)
	}
	var missing []string
	need := append([]string(nil), required...)
	if extra, ok := Strategies[p.Batch.Strategy]; ok {
		for _, k := range extra {
			need = append(need, "batch."+k)
		}
	}
	for _, k := range need {
		if md.IsDefined(strings.Split(k, ".")...) {
			continue
		}
		if stored && k == "batch.prefix_caching" {
			p.prefixCachingUnset = true
			continue
		}
		missing = append(missing, k+missingHint[k])
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("missing required key %s", strings.Join(missing, ", "))
	}
	// A limit of another strategy would be silently ignored, and the plan
	// would not say what was measured. (Zero values pass: an encoded plan
	// writes every field.) A FieldError, joined, so that Load gives its
	// line.
	if own, ok := Strategies[p.Batch.Strategy]; ok {
		b := p.Batch
		var foreign []error
		for _, k := range []struct {
			name string
			set  bool
		}{
			{"batch_size", b.BatchSize != 0}, {"max_wait_ms", b.MaxWaitMS != 0}, {"max_token_budget", b.MaxTokenBudget != 0},
			{"max_num_seqs", b.MaxNumSeqs != 0}, {"max_num_batched_tokens", b.MaxNumBatchedTokens != 0}, {"chunked_prefill", b.ChunkedPrefill},
		} {
			if k.set && !slices.Contains(own, k.name) {
				foreign = append(foreign, &FieldError{Key: "batch." + k.name, Problem: fmt.Sprintf("does not apply to strategy %q", p.Batch.Strategy)})
			}
		}
		if len(foreign) > 0 {
			return nil, errors.Join(foreign...)
		}
	}
	if err := checkClusterKeys(md); err != nil {
		return nil, err
	}
	// One API price alone would bill the other side at $0 unsaid.
	in, out := md.IsDefined("cost", "api_input_usd_per_mtok"), md.IsDefined("cost", "api_output_usd_per_mtok")
	if in != out {
		missing := "api_input_usd_per_mtok"
		if in {
			missing = "api_output_usd_per_mtok"
		}
		return nil, fmt.Errorf("missing required key cost.%s (the billed basis needs both API prices; 0 for a side that is free)", missing)
	}
	return &p, nil
}

// checkClusterKeys checks the keys of an optional [cluster] section:
// replicas and router are required, split_tokens and long_replicas come
// together, and split_on_prompt needs them.
func checkClusterKeys(md toml.MetaData) error {
	if !md.IsDefined("cluster") {
		return nil
	}
	var missing []string
	for _, k := range []string{"replicas", "router"} {
		if !md.IsDefined("cluster", k) {
			missing = append(missing, "cluster."+k)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing required key %s ([cluster] needs replicas and router)", strings.Join(missing, ", "))
	}
	// FieldErrors, joined, so that Load gives the line of the key the
	// plan has: the missing one has none.
	split, long := md.IsDefined("cluster", "split_tokens"), md.IsDefined("cluster", "long_replicas")
	switch {
	case split && !long:
		return errors.Join(missingPartner("cluster.split_tokens", "cluster.long_replicas"))
	case long && !split:
		return errors.Join(missingPartner("cluster.long_replicas", "cluster.split_tokens"))
	case md.IsDefined("cluster", "split_on_prompt") && !split:
		return errors.Join(&FieldError{Key: "cluster.split_on_prompt", Problem: "needs cluster.split_tokens and cluster.long_replicas"})
	}
	return nil
}

// missingPartner refuses key, given without partner, its other half.
func missingPartner(key, partner string) *FieldError {
	return &FieldError{Key: key, Problem: "missing required key " + partner + " (cluster.split_tokens and cluster.long_replicas go together)"}
}

// FieldError is a value Validate refuses: the plan key, e.g. "cost.pue",
// and what is wrong with it. A sweep uses Key to tell which file the value
// came from.
type FieldError struct {
	Key, Problem string
	// With are the other keys of a rule between values, each fine on its
	// own (batch.max_num_seqs for batch.max_num_batched_tokens): a sweep
	// skips a combination that breaks such a rule instead of failing.
	With []string
}

func (e *FieldError) Error() string { return e.Key + ": " + e.Problem }

// Validate checks value ranges; it does not consult the catalog. It joins
// one *FieldError a bad key.
func (p *Plan) Validate() error {
	var errs []error
	badWithAll := func(key string, with []string, format string, args ...any) {
		errs = append(errs, &FieldError{Key: key, With: with, Problem: fmt.Sprintf(format, args...)})
	}
	badWith := func(key, with, format string, args ...any) {
		var keys []string
		if with != "" {
			keys = []string{with}
		}
		badWithAll(key, keys, format, args...)
	}
	bad := func(key, format string, args ...any) { badWith(key, "", format, args...) }
	if _, ok := Strategies[p.Batch.Strategy]; !ok {
		names := make([]string, 0, len(Strategies))
		for n := range Strategies {
			names = append(names, n)
		}
		sort.Strings(names)
		bad("batch.strategy", "unknown strategy %q (want one of %s)", p.Batch.Strategy, strings.Join(names, ", "))
	}
	// An empty name is a missing value, not a name.
	for _, f := range []struct{ key, v string }{
		{"model.name", p.Model.Name}, {"model.weight_version", p.Model.WeightVersion}, {"device.model", p.Device.Model},
	} {
		if strings.TrimSpace(f.v) == "" {
			bad(f.key, "must not be empty")
		}
	}
	if _, err := model.ParsePrecision(p.Model.Precision); err != nil {
		bad("model.precision", "%v", err)
	}
	if p.Model.MaxNewTokens < 1 {
		bad("model.max_new_tokens", "must be ≥ 1, got %d", p.Model.MaxNewTokens)
	}
	if p.Model.MaxNewTokens > math.MaxInt32 {
		bad("model.max_new_tokens", "must be ≤ %d, got %d", math.MaxInt32, p.Model.MaxNewTokens)
	}
	switch p.Batch.Strategy {
	case "fixed":
		if p.Batch.BatchSize < 1 {
			bad("batch.batch_size", "must be ≥ 1, got %d", p.Batch.BatchSize)
		}
		if p.Batch.BatchSize > MaxSeqs {
			bad("batch.batch_size", "must be ≤ %d, got %d", MaxSeqs, p.Batch.BatchSize)
		}
	case "token_budget":
		// Each request reserves its prompt (at least one token) and
		// max_new_tokens, within max_model_len: a smaller budget holds
		// none, and every request would be rejected.
		least, with, what := 1+max(int64(p.Model.MaxNewTokens), 1), "model.max_new_tokens", "1 + model.max_new_tokens"
		if l := int64(p.Device.MaxModelLen); l > 0 && l < least {
			least, with, what = l, "device.max_model_len", "device.max_model_len"
		}
		if int64(p.Batch.MaxTokenBudget) < least {
			if p.Batch.MaxTokenBudget < 2 {
				with = "" // too small for any max_new_tokens
			}
			badWith("batch.max_token_budget", with, "must be ≥ %d (%s: a request reserves its prompt and max_new_tokens, within device.max_model_len), got %d",
				least, what, p.Batch.MaxTokenBudget)
		}
	case "continuous":
		if p.Batch.MaxNumSeqs < 1 {
			bad("batch.max_num_seqs", "must be ≥ 1, got %d", p.Batch.MaxNumSeqs)
		}
		if p.Batch.MaxNumSeqs > MaxSeqs {
			bad("batch.max_num_seqs", "must be ≤ %d, got %d", MaxSeqs, p.Batch.MaxNumSeqs)
		}
		if p.Batch.MaxNumBatchedTokens < max(p.Batch.MaxNumSeqs, 1) {
			with := "batch.max_num_seqs"
			if p.Batch.MaxNumBatchedTokens < 1 {
				with = ""
			}
			badWith("batch.max_num_batched_tokens", with, "must be ≥ batch.max_num_seqs (%d) so every running sequence can decode, got %d",
				p.Batch.MaxNumSeqs, p.Batch.MaxNumBatchedTokens)
		}
		// vLLM refuses to start so: without chunked prefill a prompt
		// longer than the budget could never be scheduled.
		if !p.Batch.ChunkedPrefill && p.Batch.MaxNumBatchedTokens >= 1 && p.Batch.MaxNumBatchedTokens < p.Device.MaxModelLen {
			badWithAll("batch.max_num_batched_tokens", []string{"device.max_model_len", "batch.chunked_prefill"},
				"must be ≥ device.max_model_len (%d) when batch.chunked_prefill is false, as a prompt longer than the budget could never be scheduled, got %d",
				p.Device.MaxModelLen, p.Batch.MaxNumBatchedTokens)
		}
	}
	switch w := p.Batch.MaxWaitMS; {
	case !(w >= 0) || math.IsInf(w, 0):
		bad("batch.max_wait_ms", "must be a finite number ≥ 0, got %g", w)
	case w > sim.MaxWaitMs:
		bad("batch.max_wait_ms", "must be at most %.0f (2^32 s), got %g", float64(sim.MaxWaitMs), w)
	}
	if p.Device.Count < 1 {
		bad("device.count", "must be ≥ 1, got %d", p.Device.Count)
	}
	if p.Device.Count > MaxDeviceCount {
		bad("device.count", "must be ≤ %d, got %d", MaxDeviceCount, p.Device.Count)
	}
	if !(p.Device.MemoryLimitGiB >= 0) || math.IsInf(p.Device.MemoryLimitGiB, 0) {
		bad("device.memory_limit_gib", "must be a finite number ≥ 0, got %g", p.Device.MemoryLimitGiB)
	}
	if !(p.Cost.PUE >= 1 && p.Cost.PUE <= MaxPUE) {
		bad("cost.pue", "must be a finite number in [1, %g] (facility energy / device energy), got %g", MaxPUE, p.Cost.PUE)
	}
	if !(p.Device.GPUMemoryUtilization > 0 && p.Device.GPUMemoryUtilization <= 1) {
		bad("device.gpu_memory_utilization", "must be in (0, 1], got %g", p.Device.GPUMemoryUtilization)
	}
	// (a max_model_len below one token is refused below, and bounds nothing)
	if p.Device.BlockSize < 1 || p.Device.MaxModelLen >= 1 && p.Device.BlockSize > p.Device.MaxModelLen {
		with := "device.max_model_len"
		if p.Device.BlockSize < 1 {
			with = ""
		}
		badWith("device.block_size", with, "must be in [1, device.max_model_len (%d)], got %d", p.Device.MaxModelLen, p.Device.BlockSize)
	}
	if p.Device.MaxModelLen < 1 {
		bad("device.max_model_len", "must be ≥ 1, got %d", p.Device.MaxModelLen)
	}
	for _, f := range []struct {
		key string
		v   float64
	}{
		{"usd_per_hour", p.Cost.USDPerHour}, {"usd_per_kwh", p.Cost.USDPerKWh},
		{"api_input_usd_per_mtok", p.Cost.APIInputUSDPerMTok}, {"api_output_usd_per_mtok", p.Cost.APIOutputUSDPerMTok},
	} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			bad("cost."+f.key, "must be a finite price ≥ 0, got %g", f.v)
		} else if f.v > MaxPrice {
			bad("cost."+f.key, "must be a price ≤ %.0f, got %g", MaxPrice, f.v)
		}
	}
	if c := p.Cluster; c != nil {
		if c.Replicas < 1 {
			bad("cluster.replicas", "must be ≥ 1, got %d", c.Replicas)
		}
		// each replica is a simulated engine: a count past this is no
		// cluster the simulator can lay out (and device totals overflow)
		if c.Replicas > MaxReplicas {
			bad("cluster.replicas", "must be ≤ %d, got %d", MaxReplicas, c.Replicas)
		}
		if !slices.Contains(sim.Routers, c.Router) {
			bad("cluster.router", "unknown router %q (want one of %s)", c.Router, strings.Join(sim.Routers, ", "))
		}
		if c.SplitTokens != 0 || c.LongReplicas != 0 || c.SplitOnPrompt {
			if c.SplitTokens < 1 {
				bad("cluster.split_tokens", "must be ≥ 1, got %d", c.SplitTokens)
			}
			if c.LongReplicas < 1 {
				bad("cluster.long_replicas", "must be ≥ 1, got %d", c.LongReplicas)
			}
			if c.LongReplicas > MaxReplicas {
				bad("cluster.long_replicas", "must be ≤ %d, got %d", MaxReplicas, c.LongReplicas)
			}
		}
	}
	return errors.Join(errs...)
}

// Prices returns the [cost] section as model prices.
func (p *Plan) Prices() model.Prices {
	return model.Prices{
		DevicePerHour:    p.Cost.USDPerHour,
		EnergyPerKWh:     p.Cost.USDPerKWh,
		PUE:              p.Cost.PUE,
		APIInputPerMTok:  p.Cost.APIInputUSDPerMTok,
		APIOutputPerMTok: p.Cost.APIOutputUSDPerMTok,
	}
}

// Clustered reports whether the plan runs as a cluster (sim.RunCluster):
// a [cluster] section with more than one replica or a length split.
func (p *Plan) Clustered() bool {
	c := p.Cluster
	return c != nil && (c.Replicas > 1 || c.SplitTokens > 0)
}

// Split reports whether the [cluster] splits requests into a short and a
// long pool.
func (p *Plan) Split() bool { return p.Cluster != nil && p.Cluster.SplitTokens > 0 }

// Replicas is the number of replicas over every pool: 1 without [cluster],
// replicas + long_replicas with a split. A total past int (a plan
// Validate refuses, but a sweep reads it from a decoded plan first) is
// math.MaxInt, not a wrapped negative count.
func (p *Plan) Replicas() int {
	c := p.Cluster
	if c == nil {
		return 1
	}
	if c.SplitTokens > 0 {
		return saturatingAdd(c.Replicas, c.LongReplicas)
	}
	return c.Replicas
}

// Devices is the number of devices the plan holds: device.count × every
// replica of every pool. A total past int (a plan Validate refuses, but a
// sweep compares with max_devices first) is math.MaxInt, not a wrapped
// count below any limit.
func (p *Plan) Devices() int {
	if p.Cluster == nil {
		return p.Device.Count
	}
	return saturatingMul(p.Device.Count, p.Replicas())
}

// saturatingAdd is a + b, or math.MaxInt where two positive ints pass it.
func saturatingAdd(a, b int) int {
	if a > 0 && b > 0 && a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}

// saturatingMul is a × b, or math.MaxInt where two positive ints pass it.
func saturatingMul(a, b int) int {
	if a > 0 && b > 0 && a > math.MaxInt/b {
		return math.MaxInt
	}
	return a * b
}

// ClusterLabel describes the [cluster] section for tables, e.g.
// "4× least_outstanding", or "short 4 + long 2 @2048 least_outstanding"
// with a split ("@prompt≤2048" when the split compares the prompt alone);
// "" without one.
func (p *Plan) ClusterLabel() string {
	c := p.Cluster
	if c == nil {
		return ""
	}
	if c.SplitTokens <= 0 {
		return fmt.Sprintf("%d× %s", c.Replicas, c.Router)
	}
	at := fmt.Sprintf("@%d", c.SplitTokens)
	if c.SplitOnPrompt {
		at = fmt.Sprintf("@prompt≤%d", c.SplitTokens)
	}
	return fmt.Sprintf("short %d + long %d %s %s", c.Replicas, c.LongReplicas, at, c.Router)
}

// BatchLimit describes the policy's batch limit for tables, e.g.
// "seqs=256 tok=8192 chunked prefix-cache"; a plan with a [cluster] section appends
// its ClusterLabel after "; ".
func (p *Plan) BatchLimit() string {
	if cl := p.ClusterLabel(); cl != "" {
		return p.batchLimit() + "; " + cl
	}
	return p.batchLimit()
}

func (p *Plan) batchLimit() string {
	s := p.strategyLimit()
	switch {
	case p.prefixCachingUnset:
		s += " prefix_caching unset"
	case p.Batch.PrefixCaching:
		s += " prefix-cache"
	}
	return s
}

// strategyLimit is the batch limit of the strategy's own keys.
func (p *Plan) strategyLimit() string {
	b := p.Batch
	switch b.Strategy {
	case "fixed":
		return fmt.Sprintf("B=%d wait=%gms", b.BatchSize, b.MaxWaitMS)
	case "token_budget":
		return fmt.Sprintf("budget=%d wait=%gms", b.MaxTokenBudget, b.MaxWaitMS)
	case "continuous":
		s := fmt.Sprintf("seqs=%d tok=%d", b.MaxNumSeqs, b.MaxNumBatchedTokens)
		if b.ChunkedPrefill {
			s += " chunked"
		}
		return s
	}
	return "1"
}

// Encode writes p as TOML.
func (p *Plan) Encode() ([]byte, error) {
	var buf bytes.Buffer
	err := toml.NewEncoder(&buf).Encode(p)
	return buf.Bytes(), err
}
