package model

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/servesim/servesim/internal/tomlkeys"
)

// Catalog is a set of architectures and hardware, looked up by name
// case-insensitively. A Catalog is not safe for concurrent mutation; reads
// return copies, so callers may modify what they get.
type Catalog struct {
	archs    map[string]Arch     // keyed by lower-case name
	hardware map[string]Hardware // keyed by lower-case name
	// memorySetAt is where a catalog file set a hardware entry's
	// memory_bytes ("user.toml: line 7"), by lower-case name.
	memorySetAt map[string]string
}

// NewCatalog returns an empty catalog.
func NewCatalog() *Catalog {
	return &Catalog{archs: map[string]Arch{}, hardware: map[string]Hardware{}, memorySetAt: map[string]string{}}
}

// DefaultCatalog returns a fresh copy of the built-in catalog; changes to it
// do not affect later calls.
func DefaultCatalog() *Catalog {
	c := NewCatalog()
	for _, a := range builtinArchs() {
		c.archs[key(a.Name)] = a
	}
	for _, h := range builtinHardware() {
		c.hardware[key(h.Name)] = h
	}
	return c
}

func key(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

// SameName reports whether the catalog reads a and b as one name: it
// looks names up without case or surrounding spaces.
func SameName(a, b string) bool { return key(a) == key(b) }

// Clone returns a deep copy of c.
func (c *Catalog) Clone() *Catalog {
	n := NewCatalog()
	for k, a := range c.archs {
		n.archs[k] = a
	}
	for k, h := range c.hardware {
		n.hardware[k] = h.clone()
	}
	for k, at := range c.memorySetAt {
		n.memorySetAt[k] = at
	}
	return n
}

// Arch looks up an architecture by name, case-insensitively. The error
// lists the known names.
func (c *Catalog) Arch(name string) (Arch, error) {
	if a, ok := c.archs[key(name)]; ok {
		return a, nil
	}
	return Arch{}, fmt.Errorf("model: unknown architecture %q (known: %s)", name, strings.Join(c.ArchNames(), ", "))
}

// Hardware looks up a hardware entry by name, case-insensitively. The error
// lists the known names.
func (c *Catalog) Hardware(name string) (Hardware, error) {
	if h, ok := c.hardware[key(name)]; ok {
		return h.clone(), nil
	}
	return Hardware{}, fmt.Errorf("model: unknown hardware %q (known: %s)", name, strings.Join(c.HardwareNames(), ", "))
}

// MemorySetAt returns where a catalog file set hardware name's
// memory_bytes ("user.toml: line 7"), or "" for the built-in value: a
// memory too small is then more likely a typo in that file than in a plan.
func (c *Catalog) MemorySetAt(name string) string {
	return c.memorySetAt[key(name)]
}

// ArchNames returns the architecture names, sorted.
func (c *Catalog) ArchNames() []string {
	names := make([]string, 0, len(c.archs))
	for _, a := range c.archs {
		names = append(names, a.Name)
	}
	sort.Strings(names)
	return names
}

// HardwareNames returns the hardware names, sorted.
func (c *Catalog) HardwareNames() []string {
	names := make([]string, 0, len(c.hardware))
	for _, h := range c.hardware {
		names = append(names, h.Name)
	}
	sort.Strings(names)
	return names
}

// AddArch validates a and adds it, replacing any entry of the same name.
func (c *Catalog) AddArch(a Arch) error {
	if err := a.Validate(); err != nil {
		return err
	}
	c.archs[key(a.Name)] = a
	return nil
}

// AddHardware validates h and adds a copy, replacing any entry of the same
// name.
func (c *Catalog) AddHardware(h Hardware) error {
	if err := h.Validate(); err != nil {
		return err
	}
	c.hardware[key(h.Name)] = h.clone()
	delete(c.memorySetAt, key(h.Name))
	return nil
}

// catalogFile is the TOML layout read by LoadTOML. Pointer fields tell a
// key that is absent from one set to zero.
type catalogFile struct {
	Arch     []archEntry     `toml:"arch"`
	Hardware []hardwareEntry `toml:"hardware"`
}

type archEntry struct {
	Name            *string  `toml:"name"`
	Params          *float64 `toml:"params"`
	ActiveParams    *float64 `toml:"active_params"`
	Layers          *int     `toml:"layers"`
	Hidden          *int     `toml:"hidden"`
	Heads           *int     `toml:"heads"`
	KVHeads         *int     `toml:"kv_heads"`
	HeadDim         *int     `toml:"head_dim"`
	Intermediate    *int     `toml:"intermediate"`
	Vocab           *int     `toml:"vocab"`
	MaxContext      *int     `toml:"max_context"`
	Experts         *int     `toml:"experts"`
	ExpertsPerToken *int     `toml:"experts_per_token"`
	TiedEmbeddings  *bool    `toml:"tied_embeddings"`
}

type hardwareEntry struct {
	Name                 *string            `toml:"name"`
	MemoryBytes          *float64           `toml:"memory_bytes"`
	BandwidthBytesPerSec *float64           `toml:"bandwidth_bytes_per_sec"`
	FLOPS                map[string]float64 `toml:"flops"`
	TDPWatts             *float64           `toml:"tdp_watts"`
	IdleWatts            *float64           `toml:"idle_watts"`
	PricePerHour         *float64           `toml:"price_per_hour"`
}

// LoadTOML reads a catalog file and adds or overrides entries. The file
// holds [[arch]] and [[hardware]] tables:
//
//	[[arch]]
//	name = "Llama-3.1-8B"     # matches the built-in entry: only max_context changes
//	max_context = 8192
//
//	[[hardware]]
//	name = "my-gpu"           # a new entry: every required key must be given
//	memory_bytes = 25_769_803_776
//	bandwidth_bytes_per_sec = 1.0e12
//	tdp_watts = 300
//	idle_watts = 30
//	price_per_hour = 1.2
//	[hardware.flops]          # merged per precision onto an existing entry
//	bf16 = 2.0e14
//
// Arch keys: name, params, active_params, layers, hidden, heads, kv_heads,
// head_dim, intermediate, vocab, max_context, experts, experts_per_token,
// tied_embeddings.
// Hardware keys: name, memory_bytes, bandwidth_bytes_per_sec, flops (a
// table of precision = ops/s), tdp_watts, idle_watts, price_per_hour. Units
// are those of the Go fields (bytes, bytes/s, ops/s, W, USD/h).
//
// An entry whose name matches an existing one (case-insensitively), built
// in or from an earlier file, is merged onto it field by field: keys
// present in the file replace, absent keys keep their values; derived
// fields such as params are not recomputed. A new hardware entry gives
// every hardware key. A new architecture may leave out
// head_dim (hidden/heads),
// kv_heads (heads), params and active_params (from EstimateParams; for
// MoE, the one not given is scaled from the one given by the shape's ratio
// of total to active). Every resulting entry is validated, and its params
// and active_params must lie within a factor of 2 of EstimateParams of its
// shape: a count in billions, a slipped digit, or a shape override that
// leaves the kept params behind is refused (give params with the shape).
// An override that gives a dense built-in experts gives active_params too:
// the dense count it would keep is every weight, not the experts' share.
//
// Unknown keys, unknown precisions, invalid entries and a name given
// twice in one file are errors naming the file, the line and the key or
// entry ("user.toml: line 7: ..."). On error the catalog is left unchanged.
func (c *Catalog) LoadTOML(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("model: catalog: %w", err)
	}
	return c.LoadTOMLData(data, path)
}

// flopsNotTables is, for each hardware entry of data, the kind of value
// its flops key holds when that is not a table ("" otherwise): the decoder
// drops such a value unseen, leaving a built-in's FLOP/s as they were.
func flopsNotTables(data []byte) []string {
	var raw struct {
		Hardware []map[string]any `toml:"hardware"`
	}
	if _, err := toml.Decode(string(data), &raw); err != nil {
		return nil
	}
	kinds := make([]string, len(raw.Hardware))
	for i, e := range raw.Hardware {
		v, given := e["flops"]
		if _, table := v.(map[string]any); given && !table {
			kinds[i] = tomlKind(v)
		}
	}
	return kinds
}

// tomlKind names the kind of a decoded TOML value that is not a table.
func tomlKind(v any) string {
	switch v.(type) {
	case []any, []map[string]any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64, float64:
		return "a number"
	}
	return "a date or time"
}

// LoadTOMLData is LoadTOML on file contents; source names them in errors.
func (c *Catalog) LoadTOMLData(data []byte, source string) error {
	var f catalogFile
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		err = tomlkeys.TypeErrorLine(string(data), func(head string) error {
			_, err := toml.Decode(head, &catalogFile{})
			return err
		}, err)
		return fmt.Errorf("model: catalog %s: %w", source, err)
	}
	// entryAt is source and, where it can be told, the line of key (nil
	// for the entry itself) in the i-th entry of array: "user.toml: line 7".
	entryAt := func(array string, i int, key ...string) string {
		if n := tomlkeys.EntryLine(string(data), toml.Key{array}, i, key); n > 0 {
			return fmt.Sprintf("%s: line %d", source, n)
		}
		return source
	}
	// at is entryAt, or for an entry of an inline array (arch = [{...}]),
	// the array's line: the decoder keeps no entry's position, only its own.
	at := func(array string, i int, key ...string) string {
		if where := entryAt(array, i, key...); where != source || md.Type(array) != "Array" {
			return where
		}
		if n := tomlkeys.Line(string(data), md, toml.Key{array}); n > 0 {
			return fmt.Sprintf("%s: line %d (%s array)", source, n, array)
		}
		return source
	}
	// keyAt is entryAt for a key of the file, in the first entry that holds it.
	keyAt := func(k toml.Key) string {
		entries := map[string]int{"arch": len(f.Arch), "hardware": len(f.Hardware)}
		for i := range entries[k[0]] {
			if len(k) > 1 {
				if where := entryAt(k[0], i, k[1:]...); where != source {
					return where
				}
			}
		}
		if n := tomlkeys.Line(string(data), md, k); n > 0 {
			return fmt.Sprintf("%s: line %d", source, n)
		}
		return source
	}
	var unknown []error
	describe := func(k toml.Key, what string) {
		unknown = append(unknown, fmt.Errorf("model: catalog %s: unknown key %s (arch keys: %s; hardware keys: %s)",
			keyAt(k), what, tomlKeys(archEntry{}), tomlKeys(hardwareEntry{})))
	}
	for _, k := range md.Undecoded() {
		describe(k, fmt.Sprintf("%q", k.String()))
	}
	miscased := tomlkeys.Miscased(md, &f) // the decoder ignores case; the catalog does not
	for i, k := range tomlkeys.MiscasedKeys(md, &f) {
		describe(k, miscased[i])
	}
	if len(unknown) > 0 {
		return errors.Join(unknown...)
	}

	// A name given twice would have its later entry override the
	// earlier's fields unseen: which value holds would hang on the order.
	first := map[string]int{}
	once := func(array, what string, i int, name string) error {
		k := array + "/" + key(name)
		if j, again := first[k]; again {
			return fmt.Errorf("model: catalog %s: %s %s: named again (first at %s): give each name once",
				at(array, i), what, strings.TrimSpace(name), strings.TrimPrefix(at(array, j), source+": "))
		}
		first[k] = i
		return nil
	}

	next := c.Clone()
	for i, e := range f.Arch {
		if e.Name == nil || key(*e.Name) == "" {
			return fmt.Errorf("model: catalog %s: arch entry %d has no name", at("arch", i), i+1)
		}
		if err := once("arch", "architecture", i, *e.Name); err != nil {
			return err
		}
		a, exists := next.archs[key(*e.Name)]
		if !exists {
			a = Arch{Name: strings.TrimSpace(*e.Name)}
		}
		wasDense := exists && !a.IsMoE()
		e.apply(&a)
		if wasDense && a.IsMoE() && e.ActiveParams == nil {
			// The dense count is every weight, not the few experts' share.
			return fmt.Errorf("model: catalog %s: architecture %s: experts = %d makes the dense built-in entry a mixture of experts, and its active_params = %.6g is the dense count; give active_params",
				at("arch", i, "experts"), a.Name, a.Experts, a.ActiveParams)
		}
		if !exists {
			if e.HeadDim == nil && a.Heads > 0 && a.Hidden%a.Heads != 0 {
				return fmt.Errorf("model: catalog %s: architecture %s: head_dim not given, and hidden = %d is not a multiple of heads = %d to derive it from; give head_dim",
					at("arch", i), a.Name, a.Hidden, a.Heads)
			}
			fillArchDefaults(&a, e)
		}
		if err := a.Validate(); err != nil {
			return fmt.Errorf("model: catalog %s: %s", at("arch", i), strings.TrimPrefix(err.Error(), "model: "))
		}
		if off := a.paramsOffShape(); len(off) > 0 {
			return e.paramsError(off, exists, func(k ...string) string { return at("arch", i, k...) }, a.Name)
		}
		next.archs[key(a.Name)] = a
	}
	flopsKinds := flopsNotTables(data)
	for i, e := range f.Hardware {
		if e.Name == nil || key(*e.Name) == "" {
			return fmt.Errorf("model: catalog %s: hardware entry %d has no name", at("hardware", i), i+1)
		}
		if err := once("hardware", "hardware", i, *e.Name); err != nil {
			return err
		}
		if i < len(flopsKinds) && flopsKinds[i] != "" {
			return fmt.Errorf("model: catalog %s: hardware %s: flops: want a table of FLOP/s by precision, as flops = {fp16 = 9.9e14}, got %s",
				at("hardware", i, "flops"), strings.TrimSpace(*e.Name), flopsKinds[i])
		}
		h, exists := next.hardware[key(*e.Name)]
		if !exists {
			h = Hardware{Name: strings.TrimSpace(*e.Name)}
			// A key left out would be 0: a device of 0 W, or free.
			if miss := e.missing(); len(miss) > 0 {
				return fmt.Errorf("model: catalog %s: hardware %s: missing required key %s (a new hardware entry gives every key: %s)",
					at("hardware", i), h.Name, strings.Join(miss, ", "), tomlKeys(hardwareEntry{}))
			}
		}
		h = h.clone()
		if err := e.apply(&h); err != nil {
			return fmt.Errorf("model: catalog %s: hardware %s: %s", at("hardware", i, "flops", err.key), h.Name, strings.TrimPrefix(err.Error(), "model: "))
		}
		if err := h.Validate(); err != nil {
			return fmt.Errorf("model: catalog %s: %s", at("hardware", i), strings.TrimPrefix(err.Error(), "model: "))
		}
		next.hardware[key(h.Name)] = h
		if e.MemoryBytes != nil {
			next.memorySetAt[key(h.Name)] = at("hardware", i, "memory_bytes")
		}
	}
	*c = *next
	return nil
}

func (e archEntry) apply(a *Arch) {
	setF := func(dst *float64, src *float64) {
		if src != nil {
			*dst = *src
		}
	}
	setI := func(dst *int, src *int) {
		if src != nil {
			*dst = *src
		}
	}
	setF(&a.Params, e.Params)
	setF(&a.ActiveParams, e.ActiveParams)
	setI(&a.Layers, e.Layers)
	setI(&a.Hidden, e.Hidden)
	setI(&a.Heads, e.Heads)
	setI(&a.KVHeads, e.KVHeads)
	setI(&a.HeadDim, e.HeadDim)
	setI(&a.Intermediate, e.Intermediate)
	setI(&a.Vocab, e.Vocab)
	setI(&a.MaxContext, e.MaxContext)
	setI(&a.Experts, e.Experts)
	setI(&a.ExpertsPerToken, e.ExpertsPerToken)
	if e.TiedEmbeddings != nil {
		a.TiedEmbeddings = *e.TiedEmbeddings
	}
	// A dense model uses every weight per token: one count given is both.
	if !a.IsMoE() && (e.Params == nil) != (e.ActiveParams == nil) {
		if e.Params != nil {
			a.ActiveParams = a.Params
		} else {
			a.Params = a.ActiveParams
		}
	}
}

// paramsError refuses counts that stray from the shape (Arch.paramsOffShape),
// naming the first the entry gave (a count derived from it strays alike),
// else the first: one kept from the built-in entry when the entry
// overrides its shape. at gives the file and line of a key of the entry.
func (e archEntry) paramsError(off []paramsOff, override bool, at func(key ...string) string, name string) error {
	given := map[string]bool{"params": e.Params != nil, "active_params": e.ActiveParams != nil}
	o := off[0]
	for _, f := range off {
		if given[f.field] {
			o = f
			break
		}
	}
	where, kept, fix := at(), "", ""
	switch {
	case given[o.field]:
		where = at(o.field)
	case override:
		kept, fix = " (kept from the built-in entry)", fmt.Sprintf("; give %s for the new shape", o.field)
	}
	return fmt.Errorf("model: catalog %s: architecture %s: %s = %.6g%s is outside a factor of %d of the %.6g the shape gives; want the model's parameter count%s",
		where, name, o.field, o.got, kept, paramsBand, o.estimate, fix)
}

// fillArchDefaults derives what a new architecture left out.
func fillArchDefaults(a *Arch, e archEntry) {
	if e.HeadDim == nil && a.Heads > 0 && a.Hidden%a.Heads == 0 {
		a.HeadDim = a.Hidden / a.Heads
	}
	if e.KVHeads == nil {
		a.KVHeads = a.Heads
	}
	total, active := a.EstimateParams()
	switch {
	case e.Params == nil && e.ActiveParams == nil:
		a.Params, a.ActiveParams = total, active
	case e.ActiveParams == nil && active == total:
		// Every weight is active: scaling by total/total would round a
		// unit past params.
		a.ActiveParams = a.Params
	case e.ActiveParams == nil && total > 0:
		a.ActiveParams = a.Params * active / total
	case e.Params == nil && active == total:
		a.Params = a.ActiveParams
	case e.Params == nil && active > 0:
		a.Params = a.ActiveParams * total / active
	case e.Params == nil:
		a.Params = total
	}
}

// missing lists the keys a new hardware entry leaves out.
func (e hardwareEntry) missing() []string {
	var miss []string
	for _, k := range []struct {
		name  string
		given bool
	}{
		{"memory_bytes", e.MemoryBytes != nil}, {"bandwidth_bytes_per_sec", e.BandwidthBytesPerSec != nil}, {"flops", len(e.FLOPS) > 0},
		{"tdp_watts", e.TDPWatts != nil}, {"idle_watts", e.IdleWatts != nil}, {"price_per_hour", e.PricePerHour != nil},
	} {
		if !k.given {
			miss = append(miss, k.name)
		}
	}
	return miss
}

// flopsKeyError is a refused key of an entry's flops table.
type flopsKeyError struct {
	key string
	err error
}

func (e *flopsKeyError) Error() string { return e.err.Error() }

func (e hardwareEntry) apply(h *Hardware) *flopsKeyError {
	set := func(dst *float64, src *float64) {
		if src != nil {
			*dst = *src
		}
	}
	set(&h.MemoryBytes, e.MemoryBytes)
	set(&h.BandwidthBytesPerSec, e.BandwidthBytesPerSec)
	set(&h.TDPWatts, e.TDPWatts)
	set(&h.IdleWatts, e.IdleWatts)
	set(&h.PricePerHour, e.PricePerHour)
	names := make([]string, 0, len(e.FLOPS))
	for k := range e.FLOPS {
		names = append(names, k)
	}
	sort.Strings(names)
	given := map[Precision]string{}
	for _, k := range names {
		p, err := ParsePrecision(k)
		if err != nil {
			return &flopsKeyError{k, fmt.Errorf("flops key %q: unknown precision (valid: %s)", k, validPrecisions())}
		}
		// Aliases of one precision would otherwise override each other silently.
		if prev, ok := given[p]; ok {
			return &flopsKeyError{k, fmt.Errorf("flops keys %q and %q both set %s", prev, k, p)}
		}
		given[p] = k
		h.FLOPS[p] = e.FLOPS[k]
	}
	return nil
}

// tomlKeys lists the toml tags of a struct, for error messages.
func tomlKeys(v any) string {
	t := reflect.TypeOf(v)
	names := make([]string, 0, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		names = append(names, t.Field(i).Tag.Get("toml"))
	}
	return strings.Join(names, ", ")
}
