package jsonfile

import (
	"bytes"
	"encoding/json"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

type fuzzRow struct {
	A int      `json:"a"`
	B *float64 `json:"b"`
}

type FuzzEmbedded struct {
	E int `json:"e"`
}

// fuzzDoc has the kinds of fields of the files DecodeStrict reads.
type fuzzDoc struct {
	FuzzEmbedded
	Name  string             `json:"name"`
	N     int64              `json:"n"`
	X     float64            `json:"x"`
	OK    bool               `json:"ok"`
	Tags  []string           `json:"tags"`
	Rows  []fuzzRow          `json:"rows"`
	Meta  map[string]string  `json:"meta"`
	ByID  map[string]fuzzRow `json:"by_id"`
	Pair  [1]fuzzRow         `json:"pair"`
	Inner *struct {
		K string `json:"k"`
	} `json:"inner"`
}

var (
	lineError    = regexp.MustCompile(`^line ([0-9]+): .`)
	unknownField = regexp.MustCompile(`^line [0-9]+: unknown field (".*")$`)
)

// checkDecodeStrict decodes data into a new T strictly and checks what
// FuzzDecodeStrict says.
func checkDecodeStrict[T any](t *testing.T, data []byte, want string) {
	var v T
	err := DecodeStrict(data, &v, want)
	if err != nil {
		msg := err.Error()
		if m := lineError.FindStringSubmatch(msg); m != nil {
			n, _ := strconv.Atoi(m[1])
			if n < 1 || n > 1+bytes.Count(data, []byte("\n")) {
				t.Fatalf("%q: error %q names a line past the input's", data, msg)
			}
			if m := unknownField.FindStringSubmatch(msg); m != nil {
				// A key written as it is, without escapes, is on that line.
				line := bytes.Split(data, []byte("\n"))[n-1]
				key, err := strconv.Unquote(m[1])
				if err == nil && !bytes.Contains(line, []byte(`\\`)) && utf8.ValidString(key) && !strings.ContainsRune(key, utf8.RuneError) &&
					!bytes.Contains(line, []byte(`"`+key+`"`)) {
					t.Fatalf("%q: error %q, but line %d has no key %q", data, msg, n, key)
				}
			}
			return
		}
		switch {
		case msg == "empty: want "+want:
			if len(bytes.TrimSpace(data)) > 0 {
				t.Fatalf("%q: error %q, but the input is not blank", data, msg)
			}
		case msg == "truncated JSON":
		default:
			t.Fatalf("%q: error %q says neither the line nor what is missing", data, msg)
		}
		return
	}
	if !json.Valid(data) {
		t.Fatalf("accepted %q, which is not one JSON value", data)
	}
	var loose T
	if err := json.Unmarshal(data, &loose); err != nil || !reflect.DeepEqual(v, loose) {
		t.Fatalf("%q: decoded strictly %+v, but json.Unmarshal gives %+v, %v", data, v, loose, err)
	}
	enc, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%q: encoding %+v: %v", data, v, err)
	}
	var back T
	if err := DecodeStrict(enc, &back, want); err != nil || !reflect.DeepEqual(v, back) {
		t.Fatalf("%q: decoded %+v, encoded %s, decoded again %+v, %v", data, v, enc, back, err)
	}
}

// FuzzDecodeStrict: any input, decoded into an object and into an array,
// either fails with an error that says on which line (one within the
// input, and for an unknown field one with that key) or that the input is
// blank or truncated, or is one valid JSON value that json.Unmarshal
// decodes the same, and whose value, encoded, decodes strictly to itself again. Crashers found
// are kept in testdata/fuzz/FuzzDecodeStrict.
func FuzzDecodeStrict(f *testing.F) {
	for _, s := range []string{
		`{"name": "a", "n": 3, "x": 1.5, "ok": true, "tags": ["t"], "rows": [{"a": 1, "b": 2.5}, {"a": 2, "b": null}], "meta": {"k": "v"}, "inner": {"k": "x"}}`,
		"{\n \"n\": 3,\n \"name\": \"x\"\n}\n", `[{"a": 1}, {"b": -0}]`, "[]", "{}", "null", "", "  \n", `{"n": 3`, "{\"n\": 3}\n{\"n\": 4}",
		"{\n\"n\": \"three\"}", "[1]", "{\n\n\"m\": 1}", "{\n\"n\": 3,,}", `{"NAME": "a", "name": "b"}`, `{"n": 1e400}`,
		`{"x": 1e400}`, `{"n": 9223372036854775808}`, `{"rows": [{"a": 1, "c": 2}]}`, "{\"name\": \"\xff\"}", "{} ]", "{}\x00",
		`{"inner": {"k": 1}}`, `{"meta": {"k": 1}}`, "\ufeff{}", `"x"`, "tru", `{"tags": null, "meta": null, "rows": []}`,
		"{\"e\": 1, \"by_id\": {\"x\": {\"a\": 1},\n\"y\": {\"c\": 1}}}", "{\"pair\": [{}, {\"c\": 1}],\n\"c\": 1}", "{\"pair\": [{}, 1e400],\n\"c\": 1}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecodeStrict[fuzzDoc](t, data, "a JSON object")
		checkDecodeStrict[[]fuzzRow](t, data, "a JSON array")
	})
}
