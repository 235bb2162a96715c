package telemetry

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestParseMetrics(t *testing.T) {
	page := `# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="m"} 3.0
vllm:num_requests_waiting{model_name="m"} 2
  plain_total 1e3 1700000000000
esc{a="x\"y\\z\nw",b = "2" ,} NaN
inf_metric +Inf
ninf{} -Inf
{"utf8.name", env="p"} 7
om_metric 4 # {trace_id="abc"} 1.0 1.5
om_ts 5 1700000000.5
# EOF
`
	got, err := ParseMetrics([]byte(page))
	if err != nil {
		t.Fatal(err)
	}
	want := []MetricSample{
		{Name: "vllm:num_requests_running", Labels: []Label{{"engine", "0"}, {"model_name", "m"}}, Value: 3},
		{Name: "vllm:num_requests_waiting", Labels: []Label{{"model_name", "m"}}, Value: 2},
		{Name: "plain_total", Value: 1000, TimestampMs: 1700000000000, HasTimestamp: true},
		{Name: "esc", Labels: []Label{{"a", "x\"y\\z\nw"}, {"b", "2"}}, Value: math.NaN()},
		{Name: "inf_metric", Value: math.Inf(1)},
		{Name: "ninf", Value: math.Inf(-1)},
		{Name: "utf8.name", Labels: []Label{{"env", "p"}}, Value: 7},
		{Name: "om_metric", Value: 4},
		{Name: "om_ts", Value: 5, TimestampMs: 1700000000500, HasTimestamp: true},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d samples, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if !sampleEqual(got[i], want[i]) {
			t.Errorf("sample %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestParseMetricsBadLines(t *testing.T) {
	for _, line := range []string{
		`no_value`,
		`bad{a="b"`,
		`bad{a=b} 1`,
		`bad{a="b} 1`,
		`bad 1 2 3`,
		`bad one`,
		`1bad 1`,
		`bad{="x"} 1`,
		`bad{"name"} 1`,
		`{a="b"} 1`,
		`bad 1 notatime`,
	} {
		got, err := ParseMetrics([]byte("good 1\n" + line + "\ngood 2\n"))
		if err == nil {
			t.Errorf("%q: no error", line)
		} else if !strings.Contains(err.Error(), "line 2") {
			t.Errorf("%q: error %q does not name line 2", line, err)
		}
		if len(got) != 2 || got[0].Value != 1 || got[1].Value != 2 {
			t.Errorf("%q: the good lines around it were not kept: %+v", line, got)
		}
	}
}

func sampleEqual(a, b MetricSample) bool {
	va, vb := a.Value, b.Value
	if !(va == vb || math.IsNaN(va) && math.IsNaN(vb)) {
		return false
	}
	a.Value, b.Value = 0, 0
	if len(a.Labels) == 0 && len(b.Labels) == 0 {
		a.Labels, b.Labels = nil, nil
	}
	return reflect.DeepEqual(a, b)
}

// formatSample writes s in the text format, the inverse of parseSampleLine.
func formatSample(s MetricSample) string {
	var b strings.Builder
	esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	plain := s.Name != "" && isNameChar(s.Name[0], true)
	for i := 0; i < len(s.Name); i++ {
		plain = plain && isNameChar(s.Name[i], i == 0)
	}
	if plain {
		b.WriteString(s.Name)
	}
	if !plain || len(s.Labels) > 0 {
		b.WriteByte('{')
		sep := ""
		if !plain {
			b.WriteString(`"` + esc.Replace(s.Name) + `"`)
			sep = ","
		}
		for _, l := range s.Labels {
			b.WriteString(sep + `"` + esc.Replace(l.Name) + `"="` + esc.Replace(l.Value) + `"`)
			sep = ","
		}
		b.WriteByte('}')
	}
	b.WriteString(" " + strconv.FormatFloat(s.Value, 'g', -1, 64))
	if s.HasTimestamp {
		b.WriteString(" " + strconv.FormatInt(s.TimestampMs, 10))
	}
	return b.String()
}

// FuzzParseMetrics checks that the parser never panics, that every sample
// it returns has a name, and that formatting the samples and parsing them
// again gives the same samples.
func FuzzParseMetrics(f *testing.F) {
	// The seed corpus is in testdata/fuzz/FuzzParseMetrics; add the real
	// pages from testdata too.
	pages, _ := filepath.Glob("testdata/*.prom")
	for _, p := range pages {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, _ := ParseMetrics(data)
		var text strings.Builder
		for _, s := range got {
			if s.Name == "" {
				t.Fatalf("sample without a name: %+v", s)
			}
			text.WriteString(formatSample(s) + "\n")
		}
		again, err := ParseMetrics([]byte(text.String()))
		if err != nil {
			t.Fatalf("reparsing %q: %v", text.String(), err)
		}
		if len(again) != len(got) {
			t.Fatalf("reparse gave %d samples, want %d", len(again), len(got))
		}
		for i := range got {
			if !sampleEqual(got[i], again[i]) {
				t.Fatalf("sample %d: %+v became %+v via %q", i, got[i], again[i], formatSample(got[i]))
			}
		}
	})
}

// The format lets blanks separate every token, the metric name from its
// label set included.
func TestParseMetricsBlankBeforeLabels(t *testing.T) {
	got, err := ParseMetrics([]byte("vllm:num_requests_running \t{model_name=\"m\"} 3\n"))
	want := MetricSample{Name: "vllm:num_requests_running", Labels: []Label{{"model_name", "m"}}, Value: 3}
	if err != nil || len(got) != 1 || !sampleEqual(got[0], want) {
		t.Errorf("got %+v, %v; want %+v", got, err, want)
	}
}

// A label set's closing brace ends a token: the value may follow it
// without a blank, as Prometheus's own text parser reads it. After a bare
// name a blank is still needed (m-1 is no sample).
func TestParseMetricsValueRightAfterLabels(t *testing.T) {
	got, err := ParseMetrics([]byte("m{a=\"b\"}1\n{\"utf8.name\"}2 3\n"))
	want := []MetricSample{
		{Name: "m", Labels: []Label{{"a", "b"}}, Value: 1},
		{Name: "utf8.name", Value: 2, TimestampMs: 3, HasTimestamp: true},
	}
	if err != nil || len(got) != len(want) {
		t.Fatalf("got %+v, %v; want %+v", got, err, want)
	}
	for i := range want {
		if !sampleEqual(got[i], want[i]) {
			t.Errorf("sample %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if _, err := ParseMetrics([]byte("m-1\n")); err == nil {
		t.Error("m-1: no error")
	}
}
