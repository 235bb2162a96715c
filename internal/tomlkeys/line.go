package tomlkeys

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// Line is the line of data (decoded as md) that sets key or opens its
// table; 0 when it cannot be told. The decoder keeps the positions of
// keys to itself and tells them only in its errors, so Line decodes data
// again into a type that refuses key alone, and reads the line from the
// refusal.
func Line(data string, md toml.MetaData, key toml.Key) int {
	// The decoder places a table that holds the key "" on that key's
	// line instead of its own.
	if slices.ContainsFunc(md.Keys(), func(k toml.Key) bool {
		return len(k) == len(key)+1 && k[len(key)] == "" && slices.Equal(k[:len(key)], key)
	}) {
		return 0
	}
	t, ok := probeType(md, key, 0)
	if !ok {
		return 0
	}
	_, err := toml.Decode(data, reflect.New(t).Interface())
	var pe toml.ParseError
	if errors.As(err, &pe) && pe.Message == errProbe.Error() && pe.LastKey == key.String() {
		// Position.Line is where the value ends (a string over several
		// lines ends below its key); Start is where it starts, in data
		// past the byte order mark the decoder skips.
		for _, bom := range []string{"\xef\xbb\xbf", "\xff\xfe", "\xfe\xff"} {
			if rest, ok := strings.CutPrefix(data, bom); ok {
				data = rest
				break
			}
		}
		if pe.Position.Start > len(data) {
			return 0
		}
		return 1 + strings.Count(data[:pe.Position.Start], "\n")
	}
	return 0
}

var errProbe = errors.New("tomlkeys: probe")

// refuse fails to decode whatever it is given.
type refuse struct{}

func (refuse) UnmarshalTOML(any) error { return errProbe }

var anyType = reflect.TypeOf((*any)(nil)).Elem()

// probeType is a struct that takes every key of the table key[:i] as it
// comes, in a field tagged with its exact spelling (the decoder prefers an
// exact match to one in another case), and key[i:] into refuse.
func probeType(md toml.MetaData, key toml.Key, i int) (reflect.Type, bool) {
	if i == len(key) {
		return reflect.TypeOf(refuse{}), true
	}
	inner, ok := probeType(md, key, i+1)
	if !ok {
		return nil, false
	}
	// An array with keys below it holds tables, whether [[headed]] or
	// inline ("Array" to md.Type).
	if typ := md.Type(key[:i+1]...); typ == "ArrayHash" || typ == "Array" && i+1 < len(key) {
		inner = reflect.SliceOf(inner)
	}
	var names []string
	for _, k := range md.Keys() {
		if len(k) > i && slices.Equal(k[:i], key[:i]) && !slices.Contains(names, k[i]) {
			names = append(names, k[i])
		}
	}
	fields := make([]reflect.StructField, 0, len(names))
	for j, n := range names {
		typ := anyType
		if n == key[i] {
			typ = inner
		}
		if n == "" || n == "-" || strings.ContainsAny(n, "\",`") { // no struct tag spells it
			if n == key[i] {
				return nil, false
			}
			continue
		}
		fields = append(fields, reflect.StructField{Name: fmt.Sprintf("F%d", j), Type: typ, Tag: reflect.StructTag(`toml:"` + n + `"`)})
	}
	return reflect.StructOf(fields), true
}

// AtLine puts "line N: " before err, N the line of data (decoded as md)
// that sets key; err alone when the line cannot be told.
func AtLine(data string, md toml.MetaData, key toml.Key, err error) error {
	if n := Line(data, md, key); n > 0 {
		return fmt.Errorf("line %d: %w", n, err)
	}
	return err
}

// EntryLine is Line for key (nil for the table itself) in the i-th table,
// from 0, of the array of tables named array; 0 when it cannot be told.
// The decoder keeps one position a key, that of the table it saw last, so
// EntryLine reads the shortest whole-line start of data whose last table
// is the i-th and holds key.
func EntryLine(data string, array toml.Key, i int, key toml.Key) int {
	for end := 0; end < len(data); {
		if n := strings.IndexByte(data[end:], '\n'); n >= 0 {
			end += n + 1
		} else {
			end = len(data)
		}
		head := data[:end]
		var v map[string]any
		md, err := toml.Decode(head, &v)
		if err != nil || md.Type(array...) != "ArrayHash" {
			continue
		}
		entries, _ := Value(v, array).([]map[string]any)
		if len(entries) > i+1 {
			return 0 // the i-th table is past and never held key
		}
		if len(entries) == i+1 && (len(key) == 0 || Value(entries[i], key) != nil) {
			return Line(head, md, append(slices.Clone(array), key...))
		}
	}
	return 0
}

// linePrefix starts an error that names its line.
var linePrefix = regexp.MustCompile(`^toml: line \d+ `)

// TypeErrorLine is err, an error decode returned for data, as decode
// returns it for the shortest whole-line start of data that fails alike.
// The decoder places a value of the wrong type at the line of the last
// table, in an array of tables, that sets its key; in a start of data cut
// after the value's own line, that line is the last.
func TypeErrorLine(data string, decode func(string) error, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) || !linePrefix.MatchString(err.Error()) {
		return err // a syntax error's line is its own
	}
	want := linePrefix.ReplaceAllString(err.Error(), "")
	for end := 0; end < len(data); {
		if n := strings.IndexByte(data[end:], '\n'); n >= 0 {
			end += n + 1
		} else {
			end = len(data)
		}
		if e := decode(data[:end]); e != nil && !errors.As(e, &pe) && linePrefix.ReplaceAllString(e.Error(), "") == want {
			return e
		}
	}
	return err
}

// Value is the value key sets in v (a document decoded into a map); nil
// when there is none.
func Value(v map[string]any, key toml.Key) any {
	var cur any = v
	for _, k := range key {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[k]
	}
	return cur
}
