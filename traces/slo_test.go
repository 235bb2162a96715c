package traces

import (
	"strings"
	"testing"
	"time"
)

func TestParseSLO(t *testing.T) {
	for in, want := range map[string]SLO{
		"ttft=2s":                      {TTFT: 2 * time.Second},
		" tpot = 50ms , ttft=1.5s":     {TTFT: 1500 * time.Millisecond, TPOT: 50 * time.Millisecond},
		"e2e=1m,tpot=20ms,ttft=300ms":  {TTFT: 300 * time.Millisecond, TPOT: 20 * time.Millisecond, E2E: time.Minute},
		"ttft=2000ms,e2e=30s,tpot=1µs": {TTFT: 2 * time.Second, TPOT: time.Microsecond, E2E: 30 * time.Second},
	} {
		got, err := ParseSLO(in)
		if err != nil || got != want {
			t.Errorf("ParseSLO(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if back, err := ParseSLO(got.String()); err != nil || back != got {
			t.Errorf("%q written as %q reads back as %+v, %v", in, got.String(), back, err)
		}
	}
	for in, want := range map[string]string{
		"":                 "empty",
		"ttft":             `"ttft": want KEY=DURATION`,
		"p99=2s":           `"p99=2s": want KEY=DURATION with KEY ttft, tpot or e2e`,
		"ttft=2":           `ttft="2": want a positive duration`,
		"ttft=-1s":         `ttft="-1s"`,
		"ttft=0s":          `ttft="0s"`,
		"ttft=1s,ttft=2s":  "ttft given twice",
		"ttft=1s,,tpot=1s": `"": want KEY=DURATION`,
	} {
		if _, err := ParseSLO(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSLO(%q): error %v, want one saying %s", in, err, want)
		}
	}
}

// done is a success sent at 0 whose first token came at ttft and whose n
// tokens ended at e2e (ms).
func done(ttft, e2e int64, n int32) *Request {
	r := &Request{}
	r.Reset()
	r.ScheduledSend, r.ActualSend, r.HTTPStatus, r.OutputTokens, r.UsageOutput = 0, 0, 200, n, n
	r.FirstToken, r.LastToken = ttft*1e6, e2e*1e6
	return r
}

func TestSLOMet(t *testing.T) {
	slo := SLO{TTFT: 100 * time.Millisecond, TPOT: 10 * time.Millisecond, E2E: time.Second}
	failed := done(50, 500, 11)
	failed.Error, failed.HTTPStatus = "server_error: HTTP 500", 500
	for _, tc := range []struct {
		name string
		r    *Request
		want bool
	}{
		{"within every limit", done(100, 200, 11), true}, // TTFT at the limit, TPOT 10 ms
		{"TTFT over", done(101, 200, 11), false},         // 101 ms
		{"TPOT over", done(50, 161, 11), false},          // 11.1 ms
		{"E2E over", done(50, 1001, 101), false},         // TPOT 9.5 ms, E2E 1.001 s
		{"one token has no TPOT", done(50, 50, 1), true}, // only TTFT and E2E apply
		{"a failure never counts", failed, false},
	} {
		if got := slo.Met(tc.r); got != tc.want {
			t.Errorf("%s: Met = %v, want %v", tc.name, got, tc.want)
		}
	}
	if !(SLO{TTFT: time.Second}).Met(done(50, 5000, 2)) {
		t.Error("a TTFT-only SLO judged other figures")
	}
}

// FuzzParseSLO: any string either fails with an error that starts "slo: "
// and says what is wrong, or gives at least one positive limit that
// String writes back to the same SLO. Seeds: testdata/fuzz/FuzzParseSLO.
func FuzzParseSLO(f *testing.F) {
	f.Fuzz(func(t *testing.T, in string) {
		slo, err := ParseSLO(in)
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "slo: ") || len(msg) < 10 || slo != (SLO{}) {
				t.Fatalf("ParseSLO(%q) = %+v, %q", in, slo, msg)
			}
			return
		}
		if slo.IsZero() || slo.TTFT < 0 || slo.TPOT < 0 || slo.E2E < 0 {
			t.Fatalf("ParseSLO(%q) = %+v", in, slo)
		}
		if back, err := ParseSLO(slo.String()); err != nil || back != slo {
			t.Fatalf("ParseSLO(%q) = %+v, written %q, read back %+v, %v", in, slo, slo.String(), back, err)
		}
	})
}
