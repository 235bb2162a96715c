package jsonfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestDecodeStrict(t *testing.T) {
	type doc struct {
		N int    `json:"n"`
		S string `json:"s"`
	}
	var d doc
	if err := DecodeStrict([]byte("{\n \"n\": 3,\n \"s\": \"x\"\n}\n"), &d, "a JSON object"); err != nil || d != (doc{3, "x"}) {
		t.Fatalf("got %+v, %v", d, err)
	}
	for _, tc := range []struct{ in, want string }{
		{"", "empty: want a JSON object"},
		{"  \n", "empty: want a JSON object"},
		{`{"n": 3`, "truncated JSON"},
		{"{\"n\": 3}\n{\"n\": 4}", "line 2: more data after the JSON value"},
		{"{\n\"n\": \"three\"}", `line 2: n: want int, got JSON string`},
		{"[1]", "line 1: want a JSON object, got JSON array"},
		{"\n null \n", "line 2: want a JSON object, got JSON null"},
		{"{\n\n\"m\": 1}", `line 3: unknown field "m"`},
		{"{\n\"n\": 3,,}", "line 2: invalid character ','"},
		// A file that is not JSON at all (TOML, CSV) says what was wanted.
		{"\nversion = 1\n", "line 2: invalid character 'v' looking for beginning of value: not JSON, want a JSON object"},
		{"\ufeff{\"n\": 3}", "line 1: a byte-order mark before the JSON: want a JSON object without one"},
	} {
		var d doc
		if err := DecodeStrict([]byte(tc.in), &d, "a JSON object"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestLines(t *testing.T) {
	a, b := errors.New("a"), errors.New("b")
	if got := Lines(errors.Join(a, b)); len(got) != 2 || got[0] != a || got[1] != b {
		t.Errorf("joined: %v", got)
	}
	if got := Lines(a); len(got) != 1 || got[0] != a {
		t.Errorf("one: %v", got)
	}
}

type lineInner struct {
	K string `json:"k"`
}

type LineEmbedded struct {
	E int `json:"e"`
}

// lineOpaque takes any JSON value as it is: what is inside is its own.
type lineOpaque struct{}

func (*lineOpaque) UnmarshalJSON([]byte) error { return nil }

// lineStrict decodes its object strictly itself.
type lineStrict struct{}

func (*lineStrict) UnmarshalJSON(data []byte) error {
	var v lineInner
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(&v)
}

type lineDoc struct {
	LineEmbedded
	Name   string               // no tag: matched case-insensitively
	In     *lineInner           `json:"in"`
	Rows   []lineInner          `json:"rows"`
	Pair   [1]lineInner         `json:"pair"`
	ByName map[string]lineInner `json:"by_name"`
	Opaque lineOpaque           `json:"opaque"`
	Strict *lineStrict          `json:"strict"`
	Any    any                  `json:"any"`
	Skip   lineInner            `json:"-"`
}

// An unknown field's error says on which line the key is.
func TestDecodeStrictUnknownFieldLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"{\n\"e\": 1,\n\"m\": 2}", `line 3: unknown field "m"`},
		{"{\"NAME\": \"a\",\n\"nAme\": \"b\",\n\"m\": 2}", `line 3: unknown field "m"`},
		{"{\"in\": {\n\"k\": \"a\",\n\"m\": 1}}", `line 3: unknown field "m"`},
		{"{\"rows\": [{\"k\": \"a\"},\n{\"m\": 1}]}", `line 2: unknown field "m"`},
		// A fixed array's elements past its length are not looked into.
		{"{\"pair\": [{},\n{\"m\": 1}],\n\"m\": 2}", `line 3: unknown field "m"`},
		{"{\"pair\": [{}, 1e400],\n\"m\": 2}", `line 2: unknown field "m"`},
		{"{\"by_name\": {\"a\": {\"k\": \"x\"},\n\"b\": {\"m\": 1}}}", `line 2: unknown field "m"`},
		{"{\"opaque\": {\"m\": 1},\n\"any\": {\"m\": 1},\n\"skip\": {\"m\": 1},\n\"m\": 2}", `line 3: unknown field "skip"`},
		{"{\"opaque\": [{\"m\": 1}],\n\"any\": [{\"m\": 1}],\n\"m\": 2}", `line 3: unknown field "m"`},
		{"{\n\"e\": 1,\n\"\\u006d\": 2}", `line 3: unknown field "m"`},
		// The unknown field is inside what decodes itself: no line is known.
		{"{\"strict\": {\"m\": 1},\n\"m\": 2}", `json: unknown field "m"`},
		{"[\n{\"k\": \"a\"},\n{\"k\": \"a\", \"m\": 1}]", `line 3: unknown field "m"`},
	} {
		var err error
		if strings.HasPrefix(tc.in, "[") {
			var rows []lineInner
			err = DecodeStrict([]byte(tc.in), &rows, "a JSON array")
		} else {
			var d lineDoc
			err = DecodeStrict([]byte(tc.in), &d, "a JSON object")
		}
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: err = %v, want %q", tc.in, err, tc.want)
		}
	}
}
