package traces

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"testing"
)

func synthAll(t *testing.T, c SynthConfig) (Meta, []*Request) {
	t.Helper()
	r, err := Synthesize(c)
	if err != nil {
		t.Fatal(err)
	}
	var out []*Request
	for r.Next() {
		out = append(out, r.At().Clone())
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return r.Meta(), out
}

func TestSynthMatrix(t *testing.T) {
	c := DefaultSynthConfig()
	c.PromptLengths, c.Repeats, c.Warmup = []int32{128, 512, 2048}, 4, 2
	c.Arrival = ArrivalSpec{Kind: ArrivalConstant, Rate: 4}
	_, rows := synthAll(t, c)
	if len(rows) != 2+12 {
		t.Fatalf("rows = %d", len(rows))
	}
	for i, r := range rows {
		wantLen := int32(128)
		if i >= 2 {
			wantLen = c.PromptLengths[(i-2)/4]
		}
		if r.Warmup != (i < 2) || r.PromptTokens != wantLen || r.OutputTokens != 128 || r.Arrival != int64(i)*250_000_000 {
			t.Errorf("row %d = %+v", i, r)
		}
	}
	s, _ := ComputeStats(&sliceReader{rows: rows}, SLO{})
	if s.Requests != 12 || s.Warmup != 2 {
		t.Errorf("stats requests %d warmup %d", s.Requests, s.Warmup)
	}
}

func TestSynthDeterministic(t *testing.T) {
	c := DefaultSynthConfig()
	c.Requests = 500
	c.Arrival = ArrivalSpec{Kind: ArrivalGamma, Rate: 10, CV: 3}
	c.Prompt = LengthSpec{Kind: LengthLognormal, Mean: 1000, CV: 1}
	c.Output = LengthSpec{Kind: LengthUniform, Min: 10, Max: 20}
	c.PrefixGroups, c.PrefixTokens, c.BlockSize = 4, 1024, 256
	m1, a := synthAll(t, c)
	m2, b := synthAll(t, c)
	if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(m1, m2) {
		t.Fatal("same seed, different traces")
	}
	c.Seed++
	_, d := synthAll(t, c)
	if reflect.DeepEqual(a, d) {
		t.Fatal("different seeds, same trace")
	}
}

func TestSynthDistributions(t *testing.T) {
	c := DefaultSynthConfig()
	c.Requests = 200_000
	for _, tc := range []struct {
		arr    ArrivalSpec
		wantCV float64
	}{
		{ArrivalSpec{Kind: ArrivalPoisson, Rate: 50}, 1},
		{ArrivalSpec{Kind: ArrivalGamma, Rate: 50, CV: 2.5}, 2.5},
		{ArrivalSpec{Kind: ArrivalGamma, Rate: 50, CV: 0.5}, 0.5},
		{ArrivalSpec{Kind: ArrivalConstant, Rate: 50}, 0},
	} {
		c.Arrival = tc.arr
		c.Prompt = LengthSpec{Kind: LengthLognormal, Mean: 2000, CV: 0.8}
		r, err := Synthesize(c)
		if err != nil {
			t.Fatal(err)
		}
		s, err := ComputeStats(r, SLO{})
		if err != nil {
			t.Fatal(err)
		}
		if s.MeanRate == nil || s.InterArrivalCV == nil {
			t.Fatalf("%+v: rate %v cv %v, want both measured", tc.arr, s.MeanRate, s.InterArrivalCV)
		}
		if math.Abs(*s.MeanRate-50)/50 > 0.02 || math.Abs(*s.InterArrivalCV-tc.wantCV) > 0.05*tc.wantCV+0.01 {
			t.Errorf("%+v: rate %.3f cv %.3f", tc.arr, *s.MeanRate, *s.InterArrivalCV)
		}
		if math.Abs(s.Input.Mean-2000)/2000 > 0.02 {
			t.Errorf("lognormal mean = %.1f, want 2000", s.Input.Mean)
		}
	}
}

func TestSynthPrefixGroups(t *testing.T) {
	c := DefaultSynthConfig()
	c.Requests = 100
	c.Prompt = LengthSpec{Kind: LengthFixed, Value: 300}
	c.PrefixGroups, c.PrefixTokens, c.BlockSize = 2, 1000, 256
	m, rows := synthAll(t, c)
	if m.BlockSize != 256 {
		t.Errorf("block size %d", m.BlockSize)
	}
	// 1300 tokens -> 6 blocks; the first 3 (768 tokens) lie wholly in the prefix.
	firsts := map[[3]uint64]int{}
	seen := map[uint64]bool{}
	for _, r := range rows {
		if r.PromptTokens != 1300 || len(r.PrefixHashes) != 6 {
			t.Fatalf("row %+v", r)
		}
		firsts[[3]uint64(r.PrefixHashes[:3])]++
		for _, h := range r.PrefixHashes[3:] {
			if seen[h] {
				t.Fatalf("suffix hash %x repeated", h)
			}
			seen[h] = true
		}
	}
	if len(firsts) != 2 {
		t.Errorf("%d distinct shared prefixes, want 2", len(firsts))
	}
	s, _ := ComputeStats(&sliceReader{rows: rows}, SLO{})
	if want := float64(3*100-3*2) / 600; s.PrefixReuseRatio == nil || math.Abs(*s.PrefixReuseRatio-want) > 1e-9 {
		t.Errorf("reuse ratio %v, want %.4f", s.PrefixReuseRatio, want)
	}
}

func TestSynthResample(t *testing.T) {
	src := &sliceReader{meta: Meta{Source: "x"}}
	for i, l := range [][2]int32{{10, 1}, {20, 2}, {20, 2}, {0, 0}} {
		q := &Request{}
		q.Reset()
		q.PromptTokens, q.OutputTokens, q.SourceFailed = l[0], l[1], i == 3
		src.rows = append(src.rows, q)
	}
	e, err := NewEmpirical(src)
	if err != nil {
		t.Fatal(err)
	}
	c := DefaultSynthConfig()
	c.Requests, c.Resample = 3000, e
	_, rows := synthAll(t, c)
	n20 := 0
	for _, r := range rows {
		switch {
		case r.PromptTokens == 20 && r.OutputTokens == 2:
			n20++
		case r.PromptTokens == 10 && r.OutputTokens == 1:
		default:
			t.Fatalf("drew %d/%d, not in the source", r.PromptTokens, r.OutputTokens)
		}
	}
	if math.Abs(float64(n20)/3000-2.0/3) > 0.03 {
		t.Errorf("drew (20,2) %d of 3000 times, want about 2000", n20)
	}
	// A prompt matrix would set the row count and the metadata, yet every
	// prompt length would come from the source.
	c.PromptLengths, c.Repeats = []int32{64, 128}, 2
	var fe *FieldError
	if err := c.Validate(); !errors.As(err, &fe) || fe.Field != "Resample" {
		t.Errorf("resample with a prompt matrix: %v, want an error naming Resample", err)
	}
}

// Each invalid field is reported as a FieldError naming it, so the CLI
// can name the flag that set it.
func TestSynthValidate(t *testing.T) {
	for _, tc := range []struct {
		mod   func(*SynthConfig)
		field string
	}{
		{func(c *SynthConfig) { c.Arrival.Rate = 0 }, "Arrival.Rate"},
		{func(c *SynthConfig) { c.Arrival.Kind = "weibull" }, "Arrival.Kind"},
		{func(c *SynthConfig) { c.Arrival = ArrivalSpec{Kind: ArrivalGamma, Rate: 1} }, "Arrival.CV"},
		{func(c *SynthConfig) { c.Prompt = LengthSpec{Kind: LengthUniform, Min: 5, Max: 4} }, "Prompt"},
		{func(c *SynthConfig) { c.Output = LengthSpec{Kind: LengthLognormal} }, "Output"},
		{func(c *SynthConfig) { c.PrefixGroups = 2 }, "PrefixTokens"},
		{func(c *SynthConfig) { c.PrefixGroups, c.PrefixTokens = 2, 64 }, "BlockSize"},
		{func(c *SynthConfig) { c.PromptLengths, c.Repeats = []int32{1}, 0 }, "Repeats"},
		{func(c *SynthConfig) { c.Requests = -1 }, "Requests"},
		{func(c *SynthConfig) { c.Requests = 0 }, "Requests"},
	} {
		c := DefaultSynthConfig()
		tc.mod(&c)
		if _, err := Synthesize(c); err == nil {
			t.Errorf("%+v accepted", c)
		}
		var fe *FieldError
		if err := c.Validate(); !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("%+v: Validate = %v, want a FieldError for %s", c, err, tc.field)
		}
	}
}

// Validate reports every invalid field: a bad rate or rate curve does
// not hide a bad gamma CV, nor the other way round.
func TestSynthValidateJoinsArrivalFields(t *testing.T) {
	for _, tc := range []struct {
		arrival ArrivalSpec
		fields  []string
	}{
		{ArrivalSpec{Kind: ArrivalGamma, Rate: 0, CV: 0}, []string{"Arrival.Rate", "Arrival.CV"}},
		{ArrivalSpec{Kind: ArrivalGamma, Rate: 2 * MaxArrivalRate, CV: 200}, []string{"Arrival.Rate", "Arrival.CV"}},
		{ArrivalSpec{Kind: ArrivalGamma, CV: -1, Curve: []RatePoint{{T: 5, Rate: 1}}}, []string{"Arrival.Curve", "Arrival.CV"}},
		{ArrivalSpec{Kind: ArrivalGamma, Rate: 3, CV: 0, Curve: []RatePoint{{Rate: 1}}}, []string{"Arrival.Rate", "Arrival.CV"}},
		{ArrivalSpec{Kind: "weibull", Rate: -1}, []string{"Arrival.Kind", "Arrival.Rate"}},
	} {
		c := DefaultSynthConfig()
		c.Arrival = tc.arrival
		c.Requests = 0
		want := append([]string{"Requests"}, tc.fields...)
		if got := fieldErrorFields(c.Validate()); !slices.Equal(got, want) {
			t.Errorf("%+v: Validate names %v, want %v", tc.arrival, got, want)
		}
	}
}

// fieldErrorFields lists the fields of the FieldErrors in err, in order.
func fieldErrorFields(err error) []string {
	var fields []string
	var walk func(error)
	walk = func(err error) {
		if fe, ok := err.(*FieldError); ok {
			fields = append(fields, fe.Field)
		} else if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
		}
	}
	walk(err)
	return fields
}
