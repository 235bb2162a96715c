package jsonfile

import (
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
		{"{\n\n\"m\": 1}", `unknown field "m"`},
		{"{\n\"n\": 3,,}", "line 2: invalid character ','"},
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
