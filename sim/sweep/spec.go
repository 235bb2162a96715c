package sweep

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/servesim/servesim/internal/tomlkeys"
	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim"
)

// Spec is a parsed sweep specification: a base plan, the swept keys and
// their values, the SLO, the search settings and the constraints.
type Spec struct {
	Path   string // the spec file, for error messages ("" when parsed from bytes)
	Text   string // the spec file's text
	SHA256 string // hex sha256 over the spec text and the base plan file's text (if any)

	// Strategies are the batch.strategy values in sweep order: the [sweep]
	// list, or the base plan's strategy when it is not swept.
	Strategies []string
	// Axes are the other swept keys, in the canonical key order (Keys).
	Axes        []Axis
	SLO         SLO
	Search      Search
	Constraints Constraints
	// Prices maps a device.model to its USD per device-hour, in place of
	// the base plan's cost.usd_per_hour for every config on that device; a
	// swept device other than the base plan's must have one.
	Prices map[string]float64

	base map[string]any // the plan sections: base file overlaid with inline sections
	// basePath is the base plan file ("" without one), and baseKeys the
	// keys ("cost.pue") whose value it gives, not an inline section: a bad
	// value among them is the base plan's, and errors name that file.
	basePath string
	baseText string
	baseKeys map[string]bool
	// inlineKeys are the keys the spec's own plan sections give: a bad
	// value among them is named at the spec's line.
	inlineKeys map[string]bool
	// sweptKeys are the swept keys as the spec spells them, within
	// [sweep]: a value wrong on its own is named at its list's line.
	sweptKeys map[string]toml.Key
	// replicasAlias: the [sweep] gave the legacy top-level replicas key
	// (an alias of cluster.replicas whose router defaults to
	// least_outstanding).
	replicasAlias bool
}

// Axis is one swept key and its values, in the order given. Values are
// int64, float64, bool or string according to the key.
type Axis struct {
	Key    string
	Values []any
}

// SLO is the [slo] table. A zero limit is not set. Per request, the same
// limits decide whether the request counts toward goodput.
type SLO struct {
	TTFTP99Ms  float64 `toml:"ttft_p99_ms"` // P99 time to first token, ms
	TPOTP99Ms  float64 `toml:"tpot_p99_ms"` // P99 time per output token, ms
	E2EP99Ms   float64 `toml:"e2e_p99_ms"`  // P99 end-to-end latency, ms
	GoodputMin float64 `toml:"goodput_min"` // least fraction of requests meeting every limit, (0, 1]
}

// Search is the [search] table: the capacity search and the load curve.
type Search struct {
	Tolerance  float64 `toml:"tolerance"`   // relative width of the final bracket (0.02 = 2%)
	StartScale float64 `toml:"start_scale"` // first arrival-rate scale probed
	MinScale   float64 `toml:"min_scale"`   // below this a config is infeasible
	MaxScale   float64 `toml:"max_scale"`   // capacity is capped here
	MaxProbes  int     `toml:"max_probes"`  // simulations per capacity search at most
	// The load curve holds the evaluated scale c (the SLO capacity, or a
	// fixed rate_scale) and every scale StartScale·2^j in
	// [c/2^CurveBelow, c·2^CurveAbove]. These grid scales are the ones
	// the capacity search brackets with, so its complete runs are reused.
	CurveBelow        int     `toml:"curve_octaves_below"`
	CurveAbove        int     `toml:"curve_octaves_above"`
	KneeThroughputPct float64 `toml:"knee_throughput_pct"` // knee: doubling the load adds less throughput than this, %
	KneeP99Pct        float64 `toml:"knee_p99_pct"`        // knee: …while P99 TTFT or E2E grows more than this, %
}

// DefaultSearch returns the search defaults: 2% tolerance, start at scale
// 1, scales in [1/1024, 1024], at most 40 probes, a load curve from half
// to 8× the capacity, knee at < 5% throughput gain with > 50% P99 growth.
func DefaultSearch() Search {
	return Search{
		Tolerance: 0.02, StartScale: 1, MinScale: 1.0 / 1024, MaxScale: 1024, MaxProbes: 40,
		CurveBelow: 1, CurveAbove: 3,
		KneeThroughputPct: 5, KneeP99Pct: 50,
	}
}

// Constraints is the [constraints] table. Configs whose weights or KV cache
// do not fit, or that the simulator rejects, are skipped without being
// asked for.
type Constraints struct {
	// SkipIf skips a config when any condition holds. A condition is one
	// or more comparisons joined by &&, each "KEY OP VALUE" where OP is one
	// of < <= > >= == != and VALUE is a number, true, false, a (quoted)
	// string, or another key, e.g.
	// "batch.max_num_batched_tokens < batch.max_num_seqs" or
	// 'device.count > 1 && batch.strategy == "serial"'. A comparison on a
	// key that does not apply to the config's strategy does not hold. A
	// strategy, router, precision or device must be one the plan or the
	// catalog knows; a device is matched in any case, as the catalog does.
	SkipIf     []string `toml:"skip_if"`
	MaxDevices int      `toml:"max_devices"` // skip configs holding more devices (device.count × every replica of every pool); 0 = no limit

	conds []cond
}

type kind int

const (
	kString kind = iota
	kInt
	kFloat
	kBool
)

func (k kind) String() string {
	return [...]string{"a string", "an integer", "a number", "a boolean"}[k]
}

// keyDef is a sweepable key; only lists the strategies it applies to (nil:
// all).
type keyDef struct {
	key  string
	kind kind
	only []string
}

// keyDefs is the canonical key order: within a strategy the cross product
// varies the last key fastest.
var keyDefs = []keyDef{
	{"device.model", kString, nil},
	{"device.count", kInt, nil},
	{"cluster.replicas", kInt, nil},
	{"cluster.router", kString, nil},
	{"cluster.split_tokens", kInt, nil},
	{"cluster.long_replicas", kInt, nil},
	{"model.precision", kString, nil},
	{"model.max_new_tokens", kInt, nil},
	{"device.max_model_len", kInt, nil},
	{"device.block_size", kInt, nil},
	{"device.gpu_memory_utilization", kFloat, nil},
	{"batch.prefix_caching", kBool, nil},
	{"batch.batch_size", kInt, []string{"fixed"}},
	{"batch.max_token_budget", kInt, []string{"token_budget"}},
	{"batch.max_wait_ms", kFloat, []string{"fixed", "token_budget"}},
	{"batch.max_num_seqs", kInt, []string{"continuous"}},
	{"batch.max_num_batched_tokens", kInt, []string{"continuous"}},
	{"batch.chunked_prefill", kBool, []string{"continuous"}},
	{"rate_scale", kFloat, nil},
}

const strategyKey = "batch.strategy"

// Keys lists the sweepable keys: batch.strategy, then the rest in
// canonical order.
func Keys() []string {
	out := []string{strategyKey}
	for _, d := range keyDefs {
		out = append(out, d.key)
	}
	return out
}

// replicasAlias is the legacy name of cluster.replicas.
const replicasAlias = "replicas"

// lookupKey finds a sweepable key; the legacy "replicas" finds
// cluster.replicas (the keyDef has the canonical name).
func lookupKey(k string) (keyDef, bool) {
	if k == replicasAlias {
		k = "cluster.replicas"
	}
	if k == strategyKey {
		return keyDef{key: k, kind: kString}, true
	}
	for _, d := range keyDefs {
		if d.key == k {
			return d, true
		}
	}
	return keyDef{}, false
}

func (d keyDef) applies(strategy string) bool {
	return d.only == nil || slices.Contains(d.only, strategy)
}

// batchOnly are the batch keys that belong to one or two strategies; a
// config's plan keeps only those of its own strategy.
var batchOnly = map[string][]string{
	"batch_size": {"fixed"}, "max_token_budget": {"token_budget"}, "max_wait_ms": {"fixed", "token_budget"},
	"max_num_seqs": {"continuous"}, "max_num_batched_tokens": {"continuous"}, "chunked_prefill": {"continuous"},
}

// maxAxisValues bounds one key's values, so a typo in a range cannot ask
// for millions of configs.
const maxAxisValues = 10000

// maxConfigs bounds the cross product: every config is built and held
// (a few KB each) before the first runs, so keys of a few thousand values
// each would fill the memory before anything ran.
const maxConfigs = 1_000_000

// specFile is the TOML layout of a sweep spec.
type specFile struct {
	Base        string             `toml:"base"`
	Model       map[string]any     `toml:"model"`
	Batch       map[string]any     `toml:"batch"`
	Device      map[string]any     `toml:"device"`
	Cost        map[string]any     `toml:"cost"`
	Cluster     map[string]any     `toml:"cluster"`
	Sweep       map[string]any     `toml:"sweep"`
	SLO         SLO                `toml:"slo"`
	Search      Search             `toml:"search"`
	Constraints Constraints        `toml:"constraints"`
	Prices      map[string]float64 `toml:"prices"`
}

var planSections = []string{"model", "batch", "device", "cost", "cluster"}

// LoadSpec reads a sweep spec; a relative base path is relative to the
// spec's folder. Errors name the file and the key, and its line where
// it can be told.
func LoadSpec(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseSpec(data, path)
}

// ParseSpec parses a sweep spec read from path (used for messages and to
// find a relative base plan). It checks everything that does not need the
// model catalog; Expand checks the rest.
func ParseSpec(data []byte, path string) (*Spec, error) {
	s, err := parseSpec(data, path)
	if err != nil {
		name := path
		if name == "" {
			name = "sweep spec"
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

func parseSpec(data []byte, path string) (*Spec, error) {
	var f specFile
	f.Search = DefaultSearch()
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&f)
	if err != nil {
		return nil, err
	}
	// Keys under [sweep] and the plan sections decode into maps and are
	// checked later (the decoder reports inline tables in maps as undecoded).
	checkedLater := func(k toml.Key) bool {
		return len(k) > 0 && (k[0] == "sweep" || slices.Contains(planSections, k[0]))
	}
	// the decoder ignores case; the spec does not
	if unknown := tomlkeys.UnknownWhere(string(data), md, &f, func(k toml.Key) bool { return !checkedLater(k) }); len(unknown) > 0 {
		return nil, errors.New(strings.Join(unknown, "; "))
	}
	if err := checkInlineKeys(data); err != nil {
		return nil, err
	}
	s := &Spec{Path: path, Text: string(data), Prices: f.Prices}
	h := sha256.New()
	h.Write(data)

	// The base plan: a file, overlaid key by key with inline sections.
	s.base = map[string]any{}
	if f.Base != "" {
		bp := f.Base
		if !filepath.IsAbs(bp) && path != "" {
			bp = filepath.Join(filepath.Dir(path), bp)
		}
		bdata, err := os.ReadFile(bp)
		if err != nil {
			return nil, fmt.Errorf("base: %w", err)
		}
		h.Write([]byte{0})
		h.Write(bdata)
		if err := checkBaseKeys(bdata); err != nil {
			return nil, fmt.Errorf("base %s: %w", bp, err)
		}
		if _, err := toml.Decode(string(bdata), &s.base); err != nil {
			return nil, fmt.Errorf("base %s: %w", bp, err)
		}
		s.basePath, s.baseText, s.baseKeys = bp, string(bdata), map[string]bool{}
		for sec, v := range s.base {
			m, _ := v.(map[string]any)
			for k := range m {
				s.baseKeys[sec+"."+k] = true
			}
		}
	}
	s.SHA256 = hex.EncodeToString(h.Sum(nil))
	// The strategies the base plan file and the overlay name: their batch
	// limits belong to a plan of that strategy, which a strategy sweep
	// drops where they do not apply.
	named := []string{baseStrategy(s.base)}
	s.inlineKeys = map[string]bool{}
	for i, sec := range []map[string]any{f.Model, f.Batch, f.Device, f.Cost, f.Cluster} {
		if sec == nil {
			continue
		}
		dst, _ := s.base[planSections[i]].(map[string]any)
		if dst == nil {
			dst = map[string]any{}
			s.base[planSections[i]] = dst
		}
		for k, v := range sec {
			dst[k] = v
			delete(s.baseKeys, planSections[i]+"."+k)
			s.inlineKeys[planSections[i]+"."+k] = true
		}
	}
	named = append(named, baseStrategy(s.base))
	if len(s.base) == 0 {
		return nil, errors.New("no base plan: give base = \"plan.toml\" or the [model] [batch] [device] [cost] (and optional [cluster]) sections")
	}

	// A refused value is named at the line that sets it, as a plan's is.
	at := func(err error, key ...string) error {
		if key[len(key)-1] == "" { // the table itself
			key = key[:len(key)-1]
		}
		return tomlkeys.AtLine(string(data), md, key, err)
	}
	if err := s.parseSweep(f.Sweep, func(key toml.Key, err error) error { return at(err, append(toml.Key{"sweep"}, key...)...) }); err != nil {
		return nil, err
	}
	if key, err := s.foreignBatchKey(append(named, s.Strategies...)); err != nil {
		if s.inlineKeys[key] {
			return nil, at(err, strings.Split(key, ".")...)
		}
		return nil, fmt.Errorf("base %s: %w", s.basePath, atLine(s.baseText, key, err))
	}
	if key, err := checkSLO(f.SLO, md); err != nil {
		return nil, at(err, "slo", key)
	}
	s.SLO = f.SLO
	if key, err := checkSearch(f.Search); err != nil {
		return nil, at(err, "search", key)
	}
	s.Search = f.Search
	s.Constraints = f.Constraints
	if s.Constraints.MaxDevices < 0 {
		return nil, at(fmt.Errorf("constraints.max_devices: must be ≥ 0, got %d", s.Constraints.MaxDevices), "constraints", "max_devices")
	}
	for i, c := range s.Constraints.SkipIf {
		cd, err := parseCond(c)
		if err != nil {
			return nil, at(fmt.Errorf("constraints.skip_if[%d] %q: %w", i, c, err), "constraints", "skip_if")
		}
		s.Constraints.conds = append(s.Constraints.conds, cd)
	}
	for _, dev := range sortedKeys(s.Prices) {
		if p := s.Prices[dev]; !(p >= 0) || math.IsInf(p, 0) {
			return nil, at(fmt.Errorf("prices.%q: must be a finite price ≥ 0, got %g", dev, p), "prices", dev)
		} else if p > plan.MaxPrice {
			return nil, at(fmt.Errorf("prices.%q: must be a price ≤ %.0f, got %g", dev, plan.MaxPrice, p), "prices", dev)
		}
	}
	// A price no config takes is likely a misspelt device, whose configs
	// then silently keep the base plan's price.
	runOn := s.devices()
	for _, dev := range sortedKeys(s.Prices) {
		if !slices.ContainsFunc(runOn, func(d string) bool { return model.SameName(d, dev) }) {
			return nil, at(fmt.Errorf("prices.%q: no config runs on it (device.model: %s): a misspelt device?", dev, strings.Join(runOn, ", ")), "prices", dev)
		}
	}
	return s, nil
}

// devices lists the device.model values the configs run on: the swept
// ones, or the base plan's.
func (s *Spec) devices() []string {
	for _, a := range s.Axes {
		if a.Key == "device.model" {
			var devs []string
			for _, v := range a.Values {
				if d, ok := v.(string); ok {
					devs = append(devs, d)
				}
			}
			return devs
		}
	}
	if d, ok := s.base["device"].(map[string]any); ok {
		if dev, ok := d["model"].(string); ok {
			return []string{dev}
		}
	}
	return nil
}

// checkBaseKeys decodes a base plan file as a plan, so that a key it does
// not know or a value of the wrong type is reported at its line in that
// file. (Missing keys may come from the spec's inline sections, and value
// ranges are judged per config.)
func checkBaseKeys(data []byte) error {
	return checkPlanKeys(data, func(toml.Key) bool { return true })
}

// checkInlineKeys does the same for the plan sections of a spec, at the
// spec's own lines: a config's generated plan has other line numbers, and
// a swept key would hide a bad inline value in every config. The spec's
// other sections are checked by its own decoding.
func checkInlineKeys(data []byte) error {
	return checkPlanKeys(data, func(k toml.Key) bool { return slices.Contains(planSections, k[0]) })
}

// checkPlanKeys decodes data as a plan, refusing a value of the wrong type
// and the keys that mine selects among those a plan does not declare.
func checkPlanKeys(data []byte, mine func(toml.Key) bool) error {
	var p plan.Plan
	md, err := toml.Decode(string(data), &p)
	if err != nil {
		return err
	}
	// (In a spec, a miscased section name was refused with the spec's
	// keys: what is miscased here lies in a plan section.)
	if unknown := tomlkeys.UnknownWhere(string(data), md, &p, mine); len(unknown) > 0 {
		return errors.New(strings.Join(unknown, "; "))
	}
	return nil
}

// fromBase reports whether a config's value of key is the base plan
// file's: the file sets it, and neither an inline section nor the config
// (set: the keys its axes and prices wrote) replaced it.
func (s *Spec) fromBase(key string, set map[string]bool) bool {
	return s.baseKeys[key] && !set[key]
}

// atLine puts the line of text that sets key ("cost.pue") before err, as
// loading a plan gives the line of a value it refuses.
func atLine(text, key string, err error) error {
	return atKeyLine(text, strings.Split(key, "."), err)
}

// atKeyLine is atLine for a key as the text spells it, quoted parts whole.
func atKeyLine(text string, key toml.Key, err error) error {
	var v map[string]any
	md, derr := toml.Decode(text, &v)
	if derr != nil {
		return err
	}
	return tomlkeys.AtLine(text, md, key, err)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// checkSLO refuses a value of [slo], returning its key ("" for the table).
func checkSLO(slo SLO, md toml.MetaData) (key string, _ error) {
	set := 0
	for _, l := range []struct {
		key string
		v   float64
	}{{"ttft_p99_ms", slo.TTFTP99Ms}, {"tpot_p99_ms", slo.TPOTP99Ms}, {"e2e_p99_ms", slo.E2EP99Ms}} {
		if !md.IsDefined("slo", l.key) {
			continue
		}
		set++
		if !(l.v > 0) || math.IsInf(l.v, 0) {
			return l.key, fmt.Errorf("slo.%s: must be a finite number of ms > 0, got %g", l.key, l.v)
		}
		if msToNs(l.v) == 0 { // the simulator's clock counts whole ns; 0 would be unset
			return l.key, fmt.Errorf("slo.%s: %g ms is under the simulator's 1 ns resolution: give at least 1e-06", l.key, l.v)
		}
	}
	if md.IsDefined("slo", "goodput_min") {
		set++
		if !(slo.GoodputMin > 0 && slo.GoodputMin <= 1) {
			return "goodput_min", fmt.Errorf("slo.goodput_min: must be a fraction in (0, 1], got %g", slo.GoodputMin)
		}
	}
	if set == 0 {
		return "", errors.New("slo: give at least one of ttft_p99_ms, tpot_p99_ms, e2e_p99_ms, goodput_min")
	}
	return "", nil
}

// checkSearch refuses a value of [search], returning its key.
func checkSearch(s Search) (key string, _ error) {
	for _, c := range []struct {
		key string
		v   float64
	}{{"tolerance", s.Tolerance}, {"start_scale", s.StartScale}, {"min_scale", s.MinScale}, {"max_scale", s.MaxScale},
		{"knee_throughput_pct", s.KneeThroughputPct}, {"knee_p99_pct", s.KneeP99Pct}} {
		if !(c.v > 0) || math.IsInf(c.v, 0) {
			return c.key, fmt.Errorf("search.%s: must be a finite number > 0, got %g", c.key, c.v)
		}
	}
	switch {
	case s.MinScale > s.MaxScale:
		return "min_scale", fmt.Errorf("search.min_scale: %g is above search.max_scale %g", s.MinScale, s.MaxScale)
	case s.StartScale < s.MinScale || s.StartScale > s.MaxScale:
		return "start_scale", fmt.Errorf("search.start_scale: %g is outside [min_scale, max_scale] = [%g, %g]", s.StartScale, s.MinScale, s.MaxScale)
	case s.MaxProbes < 2:
		return "max_probes", fmt.Errorf("search.max_probes: must be ≥ 2, got %d", s.MaxProbes)
	}
	for _, c := range []struct {
		key string
		v   int
	}{{"curve_octaves_below", s.CurveBelow}, {"curve_octaves_above", s.CurveAbove}} {
		if c.v < 0 || c.v > 20 {
			return c.key, fmt.Errorf("search.%s: must be in [0, 20], got %d", c.key, c.v)
		}
	}
	return "", nil
}

// parseSweep flattens the [sweep] table (dotted keys or sub-tables) into
// axes and checks every value; at puts the line of a key of the table
// before an error about it.
func (s *Spec) parseSweep(sw map[string]any, at func(toml.Key, error) error) error {
	flat := map[string]any{}
	// The key as the spec writes it, within [sweep]: "batch.max_num_seqs"
	// quoted is one key, a sub-table's max_num_seqs two.
	written := map[string]toml.Key{}
	var walk func(prefix string, path toml.Key, m map[string]any) error
	walk = func(prefix string, path toml.Key, m map[string]any) error {
		for k, v := range m {
			key := prefix + k
			kpath := append(slices.Clone(path), k)
			if sub, ok := v.(map[string]any); ok && !isRange(sub) {
				if len(sub) == 0 { // a range left unwritten would sweep nothing, unsaid
					return at(kpath, fmt.Errorf("sweep.%s: an empty table: want a list, a range {from, to, step|factor} or keys", key))
				}
				if err := walk(key+".", kpath, sub); err != nil {
					return err
				}
				continue
			}
			// "device.count" and a device table's count are one key: the
			// map walk would keep either list.
			if _, dup := flat[key]; dup {
				quoted := kpath // named at the quoted spelling's line, whichever came first
				if len(written[key]) == 1 {
					quoted = written[key]
				}
				return at(quoted, fmt.Errorf("sweep.%s: given twice (as a quoted dotted key and in a table): give it once", key))
			}
			flat[key], written[key] = v, kpath
		}
		return nil
	}
	if err := walk("", nil, sw); err != nil {
		return err
	}
	atKey := func(key string, err error) error { return at(written[key], err) }
	s.sweptKeys = map[string]toml.Key{}
	for _, key := range sortedKeys(flat) {
		if _, ok := lookupKey(key); !ok {
			return atKey(key, fmt.Errorf("sweep.%s: unknown key (sweepable: %s)", key, strings.Join(Keys(), ", ")))
		}
	}
	if v, ok := flat[replicasAlias]; ok {
		if _, both := flat["cluster.replicas"]; both {
			return atKey(replicasAlias, fmt.Errorf("sweep.%s: an alias of sweep.cluster.replicas; give one of them", replicasAlias))
		}
		delete(flat, replicasAlias)
		flat["cluster.replicas"], written["cluster.replicas"] = v, written[replicasAlias]
		s.replicasAlias = true
	}
	// batch.strategy: the outermost axis.
	if v, ok := flat[strategyKey]; ok {
		vals, err := axisValues(strategyKey, kString, v)
		if err != nil {
			return atKey(strategyKey, err)
		}
		for _, x := range vals {
			st := x.(string)
			if _, ok := plan.Strategies[st]; !ok {
				return atKey(strategyKey, fmt.Errorf("sweep.%s: unknown strategy %q (want one of %s)", strategyKey, st, strings.Join(sortedKeys(plan.Strategies), ", ")))
			}
			s.Strategies = append(s.Strategies, st)
		}
	} else {
		batch, _ := s.base["batch"].(map[string]any)
		st, _ := batch["strategy"].(string)
		if _, ok := plan.Strategies[st]; !ok {
			return fmt.Errorf("batch.strategy: unknown or missing strategy %q in the base plan (want one of %s)", st, strings.Join(sortedKeys(plan.Strategies), ", "))
		}
		s.Strategies = []string{st}
	}
	for _, d := range keyDefs {
		v, ok := flat[d.key]
		if !ok {
			continue
		}
		name := d.key // as the spec spells it, for messages
		if name == "cluster.replicas" && s.replicasAlias {
			name = replicasAlias
		}
		vals, err := axisValues(name, d.kind, v)
		if err != nil {
			return atKey(d.key, err)
		}
		if d.only != nil && !slices.ContainsFunc(s.Strategies, d.applies) {
			return atKey(d.key, fmt.Errorf("sweep.%s: applies only to strategy %s, and the sweep has %s", d.key, strings.Join(d.only, ", "), strings.Join(s.Strategies, ", ")))
		}
		for i, x := range vals {
			if err := checkValue(d.key, name, x); err != nil {
				return atKey(d.key, err)
			}
			// The plan and the catalog read "float8" as fp8 and a device in
			// any case: two spellings would run one config twice.
			for _, y := range vals[:i] {
				if same(d.key, x, y) {
					return atKey(d.key, fmt.Errorf("sweep.%s: %v and %v are one value, given twice", name, y, x))
				}
			}
		}
		s.Axes = append(s.Axes, Axis{Key: d.key, Values: vals})
		s.sweptKeys[d.key] = written[d.key]
	}
	return nil
}

// foreignBatchKey refuses a batch limit the base plan or an inline
// section gives that applies to none of the strategies the spec names
// (the base plan's, the inline one, the swept ones): every config would
// drop it unsaid, where loading the plan refuses it. (A zero passes, as
// in a plan: an encoded plan writes every field.) It returns the key.
func (s *Spec) foreignBatchKey(named []string) (key string, _ error) {
	batch, _ := s.base["batch"].(map[string]any)
	for _, k := range sortedKeys(batchOnly) {
		v, ok := batch[k]
		if !ok || v == any(int64(0)) || v == any(0.0) || v == any(false) {
			continue
		}
		if !slices.ContainsFunc(named, func(st string) bool { return slices.Contains(batchOnly[k], st) }) {
			return "batch." + k, fmt.Errorf("batch.%s: does not apply to strategy %s: no config would use it (it applies to %s)",
				k, strings.Join(s.Strategies, " or "), strings.Join(batchOnly[k], " and "))
		}
	}
	return "", nil
}

// baseStrategy is the batch.strategy of plan sections ("" when none).
func baseStrategy(sections map[string]any) string {
	batch, _ := sections["batch"].(map[string]any)
	st, _ := batch["strategy"].(string)
	return st
}

// checkValue checks what can be checked of one value without the catalog
// or the rest of the plan; name is the key as the spec spells it.
func checkValue(key, name string, v any) error {
	switch key {
	case "model.precision":
		if _, err := model.ParsePrecision(v.(string)); err != nil {
			return fmt.Errorf("sweep.%s: %w", name, err)
		}
	case "cluster.replicas", "cluster.split_tokens", "cluster.long_replicas":
		n := v.(int64)
		if n < 1 {
			return fmt.Errorf("sweep.%s: must be ≥ 1, got %d", name, n)
		}
	case "cluster.router":
		if r := v.(string); !slices.Contains(sim.Routers, r) {
			return fmt.Errorf("sweep.%s: unknown router %q (want one of %s)", name, r, strings.Join(sim.Routers, ", "))
		}
	case "rate_scale":
		if f := v.(float64); !(f > 0) || math.IsInf(f, 0) {
			return fmt.Errorf("sweep.rate_scale: must be a finite scale > 0, got %g", f)
		}
	}
	return nil
}

// same reports whether two values of key name one setting: precisions by
// their canonical name, devices as the catalog matches them.
func same(key string, a, b any) bool {
	switch key {
	case "model.precision":
		pa, _ := model.ParsePrecision(a.(string))
		pb, _ := model.ParsePrecision(b.(string))
		return pa == pb
	case "device.model":
		return model.SameName(a.(string), b.(string))
	}
	return false
}

func isRange(m map[string]any) bool {
	for _, k := range []string{"from", "to", "step", "factor"} {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// axisValues turns a list, a range table or a single value into values of
// the key's kind.
func axisValues(key string, k kind, v any) ([]any, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("sweep.%s: %s", key, fmt.Sprintf(format, args...))
	}
	var out []any
	switch x := v.(type) {
	case map[string]any:
		r, err := rangeValues(k, x)
		if err != nil {
			return nil, bad("%v", err)
		}
		out = r
	case []any:
		if len(x) == 0 {
			return nil, bad("empty list")
		}
		for i, e := range x {
			c, ok := convert(k, e)
			if !ok {
				return nil, bad("value %d (%s): want %s", i, tomlValue(e), k)
			}
			out = append(out, c)
		}
	default:
		c, ok := convert(k, x)
		if !ok {
			return nil, bad("value %s: want %s, a list or a range {from, to, step|factor}", tomlValue(x), k)
		}
		out = []any{c}
	}
	if len(out) > maxAxisValues {
		return nil, bad("%d values, more than %d", len(out), maxAxisValues)
	}
	for i := range out {
		for j := range i {
			if out[j] == out[i] {
				return nil, bad("value %v appears twice", out[i])
			}
		}
	}
	return out, nil
}

// tomlValue writes a refused value as the spec does, a string quoted: a
// number given as a string reads as one otherwise.
func tomlValue(v any) string {
	if str, ok := v.(string); ok {
		return strconv.Quote(str)
	}
	return fmt.Sprint(v)
}

func convert(k kind, v any) (any, bool) {
	switch k {
	case kString:
		s, ok := v.(string)
		return s, ok
	case kBool:
		b, ok := v.(bool)
		return b, ok
	case kInt:
		n, ok := v.(int64)
		return n, ok
	case kFloat:
		switch n := v.(type) {
		case int64:
			return float64(n), true
		case float64:
			return n, !math.IsNaN(n) && !math.IsInf(n, 0)
		}
	}
	return nil, false
}

// rangeValues expands {from, to, step} (arithmetic) or {from, to, factor}
// (geometric); both ends are included when the progression hits them.
func rangeValues(k kind, m map[string]any) ([]any, error) {
	if k != kInt && k != kFloat {
		return nil, fmt.Errorf("a range needs a numeric key; give a list")
	}
	for key := range m {
		if !slices.Contains([]string{"from", "to", "step", "factor"}, key) {
			return nil, fmt.Errorf("range: unknown key %q (want from, to and step or factor)", key)
		}
	}
	num := func(name string) (float64, bool, error) {
		v, ok := m[name]
		if !ok {
			return 0, false, nil
		}
		f, ok := convert(kFloat, v)
		if !ok {
			return 0, true, fmt.Errorf("range: %s = %v: want a number", name, v)
		}
		if k == kInt && name != "factor" {
			if _, isInt := v.(int64); !isInt {
				return 0, true, fmt.Errorf("range: %s = %v: want an integer", name, v)
			}
		}
		return f.(float64), true, nil
	}
	from, hasFrom, err := num("from")
	if err != nil {
		return nil, err
	}
	to, hasTo, err := num("to")
	if err != nil {
		return nil, err
	}
	step, hasStep, err := num("step")
	if err != nil {
		return nil, err
	}
	factor, hasFactor, err := num("factor")
	if err != nil {
		return nil, err
	}
	switch {
	case !hasFrom || !hasTo:
		return nil, fmt.Errorf("range: needs from and to")
	case hasStep == hasFactor:
		return nil, fmt.Errorf("range: needs exactly one of step (arithmetic) and factor (geometric)")
	case from > to:
		return nil, fmt.Errorf("range: from = %g is above to = %g (empty range)", from, to)
	case hasStep && !(step > 0):
		return nil, fmt.Errorf("range: step = %g: want > 0", step)
	case hasFactor && !(factor > 1):
		return nil, fmt.Errorf("range: factor = %g: want > 1", factor)
	case hasFactor && !(from > 0):
		return nil, fmt.Errorf("range: geometric from = %g: want > 0", from)
	}
	var out []any
	add := func(v float64) error {
		if len(out) >= maxAxisValues {
			return fmt.Errorf("range: more than %d values", maxAxisValues)
		}
		if k == kInt {
			n := int64(math.Round(v))
			if len(out) > 0 && out[len(out)-1] == any(n) {
				return nil
			}
			out = append(out, n)
			return nil
		}
		out = append(out, round12(v))
		return nil
	}
	const eps = 1e-9
	if hasStep {
		// The count, as a float: a range too long for an int would
		// otherwise convert to a negative count and yield no values.
		nf := math.Floor((to-from)/step + eps)
		if !(nf < maxAxisValues) {
			return nil, fmt.Errorf("range: more than %d values", maxAxisValues)
		}
		n := int(nf)
		for i := 0; i <= n; i++ {
			if err := add(from + float64(i)*step); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	for v := from; v <= to*(1+eps); v *= factor {
		if err := add(v); err != nil {
			return nil, err
		}
		// With a factor close to 1 the next steps of an integer range round
		// to the same value, possibly for billions of steps: go straight to
		// the last step before the next integer.
		if next := math.Round(v) + 0.5; k == kInt && v*factor < next {
			if steps := math.Ceil(math.Log(next/v) / math.Log(factor)); steps > 2 {
				v *= math.Pow(factor, steps-2)
			}
			for v*factor < next && v*factor <= to*(1+eps) {
				v *= factor
			}
		}
	}
	return out, nil
}

// round12 rounds to 12 significant digits, so 0.1+0.2 steps give 0.3.
func round12(v float64) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	return f
}
