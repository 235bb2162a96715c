package traces

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// A lognormal minimum above the token bound cannot be kept: with no max the
// draws are clamped to the bound, below the minimum asked for. It is
// refused, as a max above the bound is.
func TestSynthLognormalMinAboveBoundRefused(t *testing.T) {
	if l, err := ParseLengthSpec("lognormal:100:1:20000000:0"); err == nil {
		t.Errorf("ParseLengthSpec accepted %v", l)
	}
	c := DefaultSynthConfig()
	c.Requests = 3
	c.Prompt = LengthSpec{Kind: LengthLognormal, Mean: 100, CV: 1, Min: 20_000_000}
	var fe *FieldError
	if err := c.Validate(); !errors.As(err, &fe) || fe.Field != "Prompt" {
		_, rows := synthAll(t, c)
		t.Errorf("Validate = %v, want a FieldError for Prompt; prompts drawn %d, below min %d", err, rows[0].PromptTokens, c.Prompt.Min)
	}
}

// Gamma arrivals with a CV so small that 1/CV² overflows are the limit of
// the process, evenly spaced, not a NaN gap turned into an error.
func TestSynthGammaTinyCV(t *testing.T) {
	c := DefaultSynthConfig()
	c.Requests = 3
	c.Arrival = ArrivalSpec{Kind: ArrivalGamma, Rate: 2, CV: 1e-160}
	r, err := Synthesize(c)
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for r.Next() {
		got = append(got, r.At().Arrival)
	}
	if err := r.Err(); err != nil || len(got) != 3 || got[1] != 5e8 || got[2] != 1e9 {
		t.Errorf("arrivals %v, err %v; want [0 500000000 1000000000]", got, err)
	}
}

// A row count past int's range, or more rows than the arrival clock can
// hold at the rate asked for, is refused before any row is made, naming
// the field that sets the count (or, for the span, the rate), rather than wrapping round to an empty
// trace or failing hours into the write.
func TestSynthRowCountRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		mod   func(*SynthConfig)
		field string
		want  string
	}{
		{"requests + warmup overflow", func(c *SynthConfig) { c.Requests, c.Warmup = math.MaxInt, 1 }, "Requests", "overflow"},
		{"matrix overflow", func(c *SynthConfig) { c.PromptLengths, c.Repeats = []int32{1, 2, 3}, math.MaxInt/2 }, "Repeats", "overflow"},
		{"matrix + warmup overflow", func(c *SynthConfig) { c.PromptLengths, c.Repeats, c.Warmup = []int32{1}, math.MaxInt, 1 }, "Repeats", "overflow"},
		{"span past the clock", func(c *SynthConfig) { c.Requests = 1 << 40 }, "Arrival.Rate", "2^32 s"},
		{"constant span past the clock", func(c *SynthConfig) {
			c.Requests, c.Arrival = 1<<33, ArrivalSpec{Kind: ArrivalConstant, Rate: 1}
		}, "Arrival.Rate", "2^32 s"},
		{"matrix span past the clock", func(c *SynthConfig) {
			c.PromptLengths, c.Repeats, c.Arrival.Rate = []int32{1, 2}, 1<<40, 10
		}, "Arrival.Rate", "2^32 s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultSynthConfig()
			tc.mod(&c)
			var fe *FieldError
			err := c.Validate()
			if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate = %v, want a FieldError for %s saying %q", err, tc.field, tc.want)
			}
			if _, err := Synthesize(c); err == nil {
				t.Error("Synthesize accepted it")
			}
		})
	}
	// The most rows the clock holds at a constant rate are still made.
	c := DefaultSynthConfig()
	c.Requests, c.Arrival = 1<<32+1, ArrivalSpec{Kind: ArrivalConstant, Rate: 1}
	if err := c.Validate(); err != nil {
		t.Errorf("2^32+1 rows at 1/s: %v", err)
	}
}

// A length spec out of range is refused quoting the spec, as a malformed
// one is, so that --prompt and --output say which text was wrong; a mean
// or cv past what a float64 holds is out of range, not "not a number".
func TestParseLengthSpecRangeErrorQuotesSpec(t *testing.T) {
	for in, want := range map[string]string{
		"uniform:5:4":          `length spec "uniform:5:4": uniform needs 0 <= min <= max <= 10000000, got [5, 4]`,
		"fixed:-1":             `length spec "fixed:-1": "-1" is not a token count: want digits (no sign), in [0, 10000000]`,
		"lognormal:100:1:9:3":  `length spec "lognormal:100:1:9:3": lognormal needs`,
		"lognormal:100:1e1000": `length spec "lognormal:100:1e1000": cv "1e1000" is out of range: lognormal needs 0 < mean <= 10000000 and 0 <= cv <= 100`,
		"lognormal:1e400:1":    `length spec "lognormal:1e400:1": mean "1e400" is out of range: lognormal needs 0 < mean <= 10000000`,
		"lognormal:-1e400:1":   `length spec "lognormal:-1e400:1": mean "-1e400" is out of range`,
		"lognormal:abc:1":      `length spec "lognormal:abc:1": mean "abc" is not a number`,
		"lognormal:100:1x":     `length spec "lognormal:100:1x": cv "1x" is not a number`,
	} {
		if _, err := ParseLengthSpec(in); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("ParseLengthSpec(%q): error %v, want one starting %s", in, err, want)
		}
	}
}

// A token count in a length spec is digits: a sign, which strconv.ParseInt
// takes, is refused, and one past what an int32 holds is out of range,
// not "not an integer"; either error gives the range.
func TestParseLengthSpecTokenCounts(t *testing.T) {
	for in, want := range map[string]string{
		"fixed:+7":                                  `length spec "fixed:+7": "+7" is not a token count: want digits (no sign), in [0, 10000000]`,
		"uniform:+1:4":                              `length spec "uniform:+1:4": "+1" is not a token count`,
		"lognormal:160:0.6:16:+1024":                `length spec "lognormal:160:0.6:16:+1024": "+1024" is not a token count`,
		"fixed: 1":                                  `length spec "fixed: 1": " 1" is not a token count`,
		"fixed:99999999999999999999":                `length spec "fixed:99999999999999999999": "99999999999999999999" is out of range: want a token count in [0, 10000000]`,
		"uniform:1:2147483648":                      `length spec "uniform:1:2147483648": "2147483648" is out of range: want a token count in [0, 10000000]`,
		"lognormal:160:0.6:16:10000001":             `length spec "lognormal:160:0.6:16:10000001": "10000001" is out of range`,
		"lognormal:160:0.6:16:99999999999999999999": `"99999999999999999999" is out of range: want a token count in [0, 10000000]`,
	} {
		if l, err := ParseLengthSpec(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseLengthSpec(%q) = %+v, %v, want an error containing %s", in, l, err, want)
		}
	}
	for in, want := range map[string]LengthSpec{
		"fixed:10000000":            {Kind: LengthFixed, Value: DefaultMaxTokens},
		"uniform:0:007":             {Kind: LengthUniform, Min: 0, Max: 7},
		"lognormal:160:0.6:16:1024": {Kind: LengthLognormal, Mean: 160, CV: 0.6, Min: 16, Max: 1024},
	} {
		if l, err := ParseLengthSpec(in); err != nil || l != want {
			t.Errorf("ParseLengthSpec(%q) = %+v, %v, want %+v", in, l, err, want)
		}
	}
}

// A resampled trace names the file its lengths came from by checksum, as
// every other derived trace does: the source's name alone ("synthetic")
// does not say which trace it was.
func TestSynthResampleRecordsSourceChecksum(t *testing.T) {
	q := &Request{}
	q.Reset()
	q.PromptTokens, q.OutputTokens = 10, 1
	src := &sliceReader{meta: Meta{Source: "synthetic", Checksums: map[string]string{"prod.parquet": "sha256:ab12"}}, rows: []*Request{q}}
	e, err := NewEmpirical(src)
	if err != nil {
		t.Fatal(err)
	}
	c := DefaultSynthConfig()
	c.Requests, c.Resample = 2, e
	m, _ := synthAll(t, c)
	if got := m.Checksums["prod.parquet"]; got != "sha256:ab12" {
		t.Errorf("meta %+v: checksum of prod.parquet %q, want sha256:ab12", m, got)
	}
}

// The shared prefix is added to each drawn prompt: a sum past the token
// bound would make a trace that Import refuses to read back ("larger is
// absurd"), so it is refused naming PrefixTokens; a lognormal without a
// max stays within the bound, prefix included.
func TestSynthPrefixPlusPromptWithinBound(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*SynthConfig)
	}{
		{"fixed", func(c *SynthConfig) { c.Prompt = LengthSpec{Kind: LengthFixed, Value: 6_000_000} }},
		{"uniform", func(c *SynthConfig) { c.Prompt = LengthSpec{Kind: LengthUniform, Min: 1, Max: 6_000_000} }},
		{"lognormal max", func(c *SynthConfig) {
			c.Prompt = LengthSpec{Kind: LengthLognormal, Mean: 5_000_000, CV: 0.1, Max: 6_000_000}
		}},
		{"lognormal min", func(c *SynthConfig) {
			c.Prompt = LengthSpec{Kind: LengthLognormal, Mean: 5_000_000, CV: 0.1, Min: 6_000_000}
		}},
		{"matrix", func(c *SynthConfig) { c.PromptLengths = []int32{10, 6_000_000} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultSynthConfig()
			c.Requests = 1
			c.PrefixGroups, c.PrefixTokens, c.BlockSize = 2, 5_000_000, 1_000_000
			tc.mod(&c)
			var fe *FieldError
			if err := c.Validate(); !errors.As(err, &fe) || fe.Field != "PrefixTokens" {
				_, rows := synthAll(t, c)
				t.Errorf("Validate = %v, want a FieldError for PrefixTokens; made a %d-token prompt", err, rows[len(rows)-1].PromptTokens)
			}
		})
	}
	c := DefaultSynthConfig()
	c.Requests = 2000
	c.PrefixGroups, c.PrefixTokens, c.BlockSize = 2, 5_000_000, 1_000_000
	c.Prompt = LengthSpec{Kind: LengthLognormal, Mean: 4_000_000, CV: 1}
	_, rows := synthAll(t, c)
	for _, r := range rows {
		if r.PromptTokens > DefaultMaxTokens {
			t.Fatalf("lognormal with a prefix made a %d-token prompt, past %d", r.PromptTokens, DefaultMaxTokens)
		}
	}
}

// An empty prompt matrix has no length for its warm-up rows: it is
// refused naming PromptLengths, not a panic at the first row.
func TestSynthEmptyMatrixRefused(t *testing.T) {
	c := DefaultSynthConfig()
	c.PromptLengths, c.Warmup = []int32{}, 1
	var fe *FieldError
	if err := c.Validate(); !errors.As(err, &fe) || fe.Field != "PromptLengths" {
		t.Errorf("Validate = %v, want a FieldError for PromptLengths", err)
	}
}

// A live run's failed row (error set, metrics empty) keeps lengths no
// request completed with (a proxy capture's is often 0 output tokens): a
// resampled trace draws only the rows that succeeded or were not run.
func TestSynthResampleSkipsFailedRows(t *testing.T) {
	src := &sliceReader{meta: Meta{Source: "live"}}
	for _, l := range []struct {
		prompt, output int32
		err            string
	}{{10, 1, ""}, {30, 0, "HTTP 500: internal error"}, {20, 2, ""}} {
		q := &Request{}
		q.Reset()
		q.PromptTokens, q.OutputTokens, q.Error = l.prompt, l.output, l.err
		if l.err == "" {
			q.ActualSend, q.FirstToken, q.LastToken = 0, 1, 2
		}
		src.rows = append(src.rows, q)
	}
	e, err := NewEmpirical(src)
	if err != nil {
		t.Fatal(err)
	}
	c := DefaultSynthConfig()
	c.Requests, c.Resample = 500, e
	_, rows := synthAll(t, c)
	for _, r := range rows {
		if r.PromptTokens == 30 {
			t.Fatalf("drew %d/%d, the failed row's lengths", r.PromptTokens, r.OutputTokens)
		}
	}
}

// Arrivals are kept to the nanosecond: above 1e6 req/s (a 1 µs mean gap) the gaps round
// to a few ns, so a constant trace would measure an inter-arrival CV far
// from 0. Such a rate is refused naming the limit; the limit itself still
// gives evenly spaced arrivals.
func TestSynthRateAboveClockResolutionRefused(t *testing.T) {
	for _, rate := range []float64{1.5e6, 3e9, math.MaxFloat64} {
		c := DefaultSynthConfig()
		c.Arrival = ArrivalSpec{Kind: ArrivalConstant, Rate: rate}
		var fe *FieldError
		if err := c.Validate(); !errors.As(err, &fe) || fe.Field != "Arrival.Rate" || !strings.Contains(fe.Msg, "at most 1e+06") {
			t.Errorf("rate %v: Validate = %v, want a FieldError for Arrival.Rate giving the limit 1e+06", rate, err)
		}
	}
	c := DefaultSynthConfig()
	c.Requests, c.Arrival = 5, ArrivalSpec{Kind: ArrivalConstant, Rate: 1e6}
	_, rows := synthAll(t, c)
	for i, r := range rows {
		if want := int64(i) * 1000; r.Arrival != want {
			t.Errorf("row %d at the rate limit: arrival %d ns, want %d", i, r.Arrival, want)
		}
	}
}

// A prefix hash block longer than any prompt a trace may hold never
// fills: every row would get one hash of a partial block, which no
// simulator or replay block can share. Such a block size is refused; the
// bound itself is taken.
func TestSynthBlockSizeAboveTokenBoundRefused(t *testing.T) {
	for _, bs := range []int{DefaultMaxTokens + 1, 1 << 40} {
		c := DefaultSynthConfig()
		c.BlockSize = bs
		var fe *FieldError
		if err := c.Validate(); !errors.As(err, &fe) || fe.Field != "BlockSize" || !strings.Contains(fe.Msg, "[0, 10000000]") {
			t.Errorf("block size %d: Validate = %v, want a FieldError for BlockSize giving [0, 10000000]", bs, err)
		}
	}
	c := DefaultSynthConfig()
	c.Requests, c.BlockSize = 2, DefaultMaxTokens
	if _, rows := synthAll(t, c); len(rows[1].PrefixHashes) != 1 {
		t.Errorf("block size %d: hashes %v, want one per prompt", c.BlockSize, rows[1].PrefixHashes)
	}
}
