package telemetry

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Label is one name="value" pair of a metric sample.
type Label struct {
	Name, Value string
}

// MetricSample is one sample line of the Prometheus text exposition format.
type MetricSample struct {
	Name   string
	Labels []Label // in the order they appeared
	Value  float64
	// TimestampMs is the optional sample timestamp in ms since the Unix
	// epoch; HasTimestamp says whether the line carried one.
	TimestampMs  int64
	HasTimestamp bool
}

// Label returns the value of the label called name, or "".
func (s *MetricSample) Label(name string) string {
	for _, l := range s.Labels {
		if l.Name == name {
			return l.Value
		}
	}
	return ""
}

// ParseMetrics parses the Prometheus text exposition format (version 0.0.4,
// plus the parts of OpenMetrics 1.0 an engine may send: "# EOF", exemplars
// after " # ", and quoted UTF-8 metric names inside the braces).
//
// It never stops at a bad line: it returns every sample it could parse and,
// when some line was malformed, an error naming the first such line. HELP,
// TYPE and other comment lines are skipped.
func ParseMetrics(data []byte) ([]MetricSample, error) {
	var (
		out  []MetricSample
		errs []error
	)
	lineNo := 0
	for len(data) > 0 {
		lineNo++
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		s := strings.TrimLeft(string(line), " \t")
		if s == "" || s[0] == '#' {
			continue
		}
		m, err := parseSampleLine(s)
		if err != nil {
			if len(errs) == 0 {
				errs = append(errs, fmt.Errorf("metrics line %d: %w", lineNo, err))
			}
			continue
		}
		out = append(out, m)
	}
	return out, errors.Join(errs...)
}

// parseSampleLine parses `name{labels} value [timestamp] [# exemplar]`.
func parseSampleLine(s string) (MetricSample, error) {
	var m MetricSample
	i := 0
	// Metric name, unless the line starts with '{' (a quoted name inside).
	for i < len(s) && isNameChar(s[i], i == 0) {
		i++
	}
	m.Name = s[:i]
	// Blanks may separate the name from its label set too.
	if j := skipSpace(s, i); i > 0 && j < len(s) && s[j] == '{' {
		i = j
	}
	if i < len(s) && s[i] == '{' {
		labels, name, n, err := parseLabels(s[i:])
		if err != nil {
			return m, err
		}
		if name != "" {
			if m.Name != "" {
				return m, errors.New("metric name both before and inside the braces")
			}
			m.Name = name
		}
		m.Labels = labels
		i += n
	}
	if m.Name == "" {
		return m, errors.New("missing metric name")
	}
	rest := strings.TrimLeft(s[i:], " \t")
	// A closing brace ends its token, so the value may follow it at once
	// (Prometheus reads m{a="b"}1); after a bare name a blank must.
	afterLabels := i > 0 && s[i-1] == '}'
	if len(rest) == len(s[i:]) && rest != "" && !afterLabels {
		return m, fmt.Errorf("unexpected %q after metric name", rest[0])
	}
	// Drop an OpenMetrics exemplar.
	if j := strings.Index(rest, " #"); j >= 0 {
		rest = rest[:j]
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 || len(fields) > 2 {
		return m, fmt.Errorf("want a value and an optional timestamp, got %d fields", len(fields))
	}
	v, err := parseValue(fields[0])
	if err != nil {
		return m, err
	}
	m.Value = v
	if len(fields) == 2 {
		ts, err := strconv.ParseInt(fields[1], 10, 64)
		if err != nil {
			// OpenMetrics timestamps are seconds, possibly fractional.
			f, ferr := strconv.ParseFloat(fields[1], 64)
			if ferr != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 9e15 {
				return m, fmt.Errorf("bad timestamp %q", fields[1])
			}
			ts = int64(f * 1000)
		}
		m.TimestampMs, m.HasTimestamp = ts, true
	}
	return m, nil
}

func isNameChar(c byte, first bool) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', c == ':':
		return true
	case c >= '0' && c <= '9':
		return !first
	}
	return false
}

// parseLabels parses `{a="b",c="d"}` starting at s[0] == '{'. A bare quoted
// string among the labels is the metric name (Prometheus 3 UTF-8 names). It
// returns the labels, that name, and the bytes consumed.
func parseLabels(s string) ([]Label, string, int, error) {
	var (
		labels []Label
		name   string
	)
	i := 1
	for {
		i = skipSpace(s, i)
		if i >= len(s) {
			return nil, "", 0, errors.New("unterminated label set")
		}
		if s[i] == '}' {
			return labels, name, i + 1, nil
		}
		var key string
		if s[i] == '"' {
			q, n, err := parseQuoted(s[i:])
			if err != nil {
				return nil, "", 0, err
			}
			i = skipSpace(s, i+n)
			if i < len(s) && (s[i] == ',' || s[i] == '}') {
				if name != "" || len(labels) > 0 {
					return nil, "", 0, errors.New("quoted metric name must come first")
				}
				if q == "" {
					return nil, "", 0, errors.New("empty metric name")
				}
				name = q
				if s[i] == ',' {
					i++
				}
				continue
			}
			key = q
		} else {
			j := i
			for j < len(s) && isNameChar(s[j], j == i) && s[j] != ':' {
				j++
			}
			if j == i {
				return nil, "", 0, fmt.Errorf("bad label name at %q", s[i:min(len(s), i+10)])
			}
			key, i = s[i:j], j
		}
		if key == "" {
			return nil, "", 0, errors.New("empty label name")
		}
		i = skipSpace(s, i)
		if i >= len(s) || s[i] != '=' {
			return nil, "", 0, fmt.Errorf("label %q: want '='", key)
		}
		i = skipSpace(s, i+1)
		if i >= len(s) || s[i] != '"' {
			return nil, "", 0, fmt.Errorf("label %q: want a quoted value", key)
		}
		val, n, err := parseQuoted(s[i:])
		if err != nil {
			return nil, "", 0, fmt.Errorf("label %q: %w", key, err)
		}
		labels = append(labels, Label{Name: key, Value: val})
		i = skipSpace(s, i+n)
		if i < len(s) && s[i] == ',' {
			i++
		} else if i < len(s) && s[i] != '}' {
			return nil, "", 0, fmt.Errorf("after label %q: want ',' or '}'", key)
		}
	}
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// parseQuoted reads a double-quoted string with the exposition format's
// escapes (\\, \", \n) starting at s[0] == '"'.
func parseQuoted(s string) (string, int, error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return b.String(), i + 1, nil
		case '\\':
			i++
			if i >= len(s) {
				return "", 0, errors.New("unterminated escape")
			}
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case '\\', '"':
				b.WriteByte(s[i])
			default: // unknown escapes are kept verbatim, as Prometheus does
				b.WriteByte('\\')
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, errors.New("unterminated quoted string")
}

func parseValue(f string) (float64, error) {
	switch f {
	case "+Inf", "Inf", "+inf", "inf":
		return math.Inf(1), nil
	case "-Inf", "-inf":
		return math.Inf(-1), nil
	case "NaN", "nan":
		return math.NaN(), nil
	}
	v, err := strconv.ParseFloat(f, 64)
	if err != nil {
		return 0, fmt.Errorf("bad value %q", f)
	}
	return v, nil
}
