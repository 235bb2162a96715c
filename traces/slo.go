package traces

import (
	"fmt"
	"strings"
	"time"
)

// SLO holds per-request latency limits; a zero limit is not set. A
// successful request within every limit that is set counts toward goodput.
// In flags and settings files it is written "ttft=2s,tpot=50ms,e2e=30s".
type SLO struct {
	TTFT, TPOT, E2E time.Duration
}

// ParseSLO reads "ttft=2s,tpot=50ms,e2e=30s": any of the three keys, each
// at most once, with a positive Go duration.
func ParseSLO(s string) (SLO, error) {
	var slo SLO
	if strings.TrimSpace(s) == "" {
		return slo, fmt.Errorf("slo: empty: want limits such as ttft=2s,tpot=50ms,e2e=30s")
	}
	for _, part := range strings.Split(s, ",") {
		key, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		var limit *time.Duration
		switch strings.TrimSpace(key) {
		case "ttft":
			limit = &slo.TTFT
		case "tpot":
			limit = &slo.TPOT
		case "e2e":
			limit = &slo.E2E
		}
		if !ok || limit == nil {
			return SLO{}, fmt.Errorf("slo: %q: want KEY=DURATION with KEY ttft, tpot or e2e", part)
		}
		if *limit != 0 {
			return SLO{}, fmt.Errorf("slo: %s given twice", key)
		}
		d, err := time.ParseDuration(strings.TrimSpace(val))
		if err != nil || d <= 0 {
			return SLO{}, fmt.Errorf("slo: %s=%q: want a positive duration such as 500ms", key, val)
		}
		*limit = d
	}
	return slo, nil
}

// IsZero reports whether no limit is set.
func (s SLO) IsZero() bool { return s == SLO{} }

// Met reports whether r succeeded within every limit that is set. A limit
// on TPOT is met by a request of one output token (it has no TPOT).
func (s SLO) Met(r *Request) bool {
	if !r.Succeeded() {
		return false
	}
	if v, ok := r.TTFT(); s.TTFT > 0 && (!ok || v > int64(s.TTFT)) {
		return false
	}
	if v, ok := r.TPOT(); s.TPOT > 0 && ok && v > float64(s.TPOT) {
		return false
	}
	if v, ok := r.E2E(); s.E2E > 0 && (!ok || v > int64(s.E2E)) {
		return false
	}
	return true
}

// String writes s as ParseSLO reads it; "" when no limit is set.
func (s SLO) String() string {
	var parts []string
	for _, l := range []struct {
		key string
		d   time.Duration
	}{{"ttft", s.TTFT}, {"tpot", s.TPOT}, {"e2e", s.E2E}} {
		if l.d > 0 {
			parts = append(parts, l.key+"="+l.d.String())
		}
	}
	return strings.Join(parts, ",")
}

// MarshalText and UnmarshalText carry an SLO as its string in JSON and
// TOML settings, where "" is no SLO.
func (s SLO) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

func (s *SLO) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*s = SLO{}
		return nil
	}
	v, err := ParseSLO(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}
