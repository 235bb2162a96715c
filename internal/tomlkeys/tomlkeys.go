// Package tomlkeys finds the keys of a TOML document spelt in another case
// than the struct it decodes into declares. The decoder matches keys to
// fields without regard to case, so "PUE" fills pue, and of "pue" and
// "PUE" in one file the last wins; servesim's TOML files are case-sensitive.
package tomlkeys

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
)

// Miscased lists, in file order, each key of md that v's type declares
// only in another spelling, as `Key (keys are case-sensitive: key)`. Keys
// the type does not declare at all are md.Undecoded's to report; map keys
// are the file's own and always match.
func Miscased(md toml.MetaData, v any) []string {
	var out []string
	for _, m := range miscased(md, v) {
		out = append(out, m.String())
	}
	return out
}

// MiscasedKeys is the keys Miscased describes, in its order.
func MiscasedKeys(md toml.MetaData, v any) []toml.Key {
	var out []toml.Key
	for _, m := range miscased(md, v) {
		out = append(out, m.key)
	}
	return out
}

// Unknown describes, with its line in data where that can be told, each
// key of md (data decoded into v) that v's type does not declare
// (md.Undecoded) or declares only in another spelling (Miscased): "line
// 25: unknown key cost.peu".
func Unknown(data string, md toml.MetaData, v any) []string {
	return UnknownWhere(data, md, v, func(toml.Key) bool { return true })
}

// UnknownWhere is Unknown with only the undeclared keys that keep selects
// (a caller may check some sections itself).
func UnknownWhere(data string, md toml.MetaData, v any, keep func(toml.Key) bool) []string {
	var out []string
	describe := func(k toml.Key, what string) {
		if n := Line(data, md, k); n > 0 {
			what = fmt.Sprintf("line %d: %s", n, what)
		}
		out = append(out, what)
	}
	for _, k := range md.Undecoded() {
		if keep(k) {
			describe(k, "unknown key "+k.String())
		}
	}
	for _, m := range miscased(md, v) {
		describe(m.key, "unknown key "+m.String())
	}
	return out
}

// miscase is a key of a file and the spelling its type declares.
type miscase struct{ key, want toml.Key }

func (m miscase) String() string {
	return fmt.Sprintf("%s (keys are case-sensitive: %s)", m.key.String(), m.want.String())
}

func miscased(md toml.MetaData, v any) []miscase {
	var out []miscase
	var bad []toml.Key // reported: the keys below them are not reported again
	undecoded := map[string]bool{}
	for _, k := range md.Undecoded() {
		undecoded[k.String()] = true
	}
	for _, k := range md.Keys() {
		if len(undecoded) > 0 && undecoded[k.String()] || slices.ContainsFunc(bad, func(b toml.Key) bool { return len(b) < len(k) && slices.Equal(b, k[:len(b)]) }) {
			continue
		}
		t := reflect.TypeOf(v)
		want := make([]string, 0, len(k))
		for i, part := range k {
			t = deref(t)
			if t == nil {
				break
			}
			if t.Kind() == reflect.Map {
				want, t = append(want, part), t.Elem()
				continue
			}
			if t.Kind() != reflect.Struct {
				break
			}
			f, exact, ok := field(t, part)
			if !ok {
				break
			}
			want, t = append(want, f.name), f.typ
			if !exact {
				out = append(out, miscase{k, toml.Key(append(want, k[i+1:]...))})
				bad = append(bad, k[:i+1])
				break
			}
		}
	}
	return out
}

// FieldType is the type of the field that key sets in struct type t,
// matched as the decoder matches it: exactly, else in another case, and
// through embedded structs. false where t declares no such field.
func FieldType(t reflect.Type, key toml.Key) (reflect.Type, bool) {
	for _, name := range key {
		if t.Kind() != reflect.Struct {
			return nil, false
		}
		f, _, ok := field(t, name)
		if !ok {
			return nil, false
		}
		t = f.typ
	}
	return t, true
}

type declared struct {
	name string
	typ  reflect.Type
}

// exactFields holds the fields field found by their exact spelling: a
// sweep decodes a plan for each of its configs, and looks up the same few
// keys in each. Other spellings are looked up afresh, so the cache holds
// no more than the declared fields.
var exactFields sync.Map // fieldKey → declared

type fieldKey struct {
	t   reflect.Type
	key string
}

// field finds the field key names in struct t, exactly or else in another
// case, looking into embedded structs as the decoder does.
func field(t reflect.Type, key string) (f declared, exact, ok bool) {
	if f, ok := exactFields.Load(fieldKey{t, key}); ok {
		return f.(declared), true, true
	}
	f, exact, ok = findField(t, key)
	if exact {
		exactFields.Store(fieldKey{t, key}, f)
	}
	return f, exact, ok
}

// findField is field without the cache.
func findField(t reflect.Type, key string) (f declared, exact, ok bool) {
	var folded declared
	var found bool
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, _, _ := strings.Cut(sf.Tag.Get("toml"), ",")
		if tag == "-" || !sf.IsExported() {
			continue
		}
		if sf.Anonymous && tag == "" {
			if et := deref(sf.Type); et != nil && et.Kind() == reflect.Struct {
				if g, ex, ok := field(et, key); ok {
					if ex {
						return g, true, true
					}
					folded, found = g, true
				}
				continue
			}
		}
		name := tag
		if name == "" {
			name = sf.Name
		}
		switch {
		case name == key:
			return declared{name, sf.Type}, true, true
		case strings.EqualFold(name, key):
			folded, found = declared{name, sf.Type}, true
		}
	}
	return folded, false, found
}

// deref is t without pointers, slices and arrays (an array of tables'
// keys name its elements' fields); nil for an interface, whose keys are
// the file's own.
func deref(t reflect.Type) reflect.Type {
	for t != nil {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			t = t.Elem()
		case reflect.Interface:
			return nil
		default:
			return t
		}
	}
	return nil
}
