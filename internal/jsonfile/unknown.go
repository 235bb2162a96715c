package jsonfile

import (
	"bytes"
	"cmp"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode"
)

// unknownFieldLine is the line of the key that encoding/json, decoding
// data into t, reported in msg ("json: unknown field \"m\""): encoding/json
// says which key, not where. It follows data with the fields encoding/json
// would decode into, and false says the key was not found where that
// leads, as inside a value that decodes itself.
func unknownFieldLine(data []byte, t reflect.Type, msg string) (int, bool) {
	w := keyWalker{dec: json.NewDecoder(bytes.NewReader(data)), msg: msg}
	w.dec.UseNumber() // a number past float64's range, skipped, is no error
	if t == nil || w.value(t) != errUnknownKey {
		return 0, false
	}
	return lineAt(data, w.off), true
}

var errUnknownKey = errors.New("an unknown key")

// keyWalker reads a JSON value token by token as encoding/json decodes it
// into a type, until the first key that is no field of the struct it is in.
type keyWalker struct {
	dec *json.Decoder
	msg string
	off int64 // just after the unknown key
}

// value reads one value decoded into t; it returns errUnknownKey at the
// key msg names, or another error where the key cannot be that one.
func (w *keyWalker) value(t reflect.Type) error {
	target := decodedAs(t)
	if target == nil {
		// A value that decodes itself returns its own errors, an unknown
		// field's among them, and decoding stops there: if this one gives
		// the error reported, where in it is not known.
		var raw json.RawMessage
		if err := w.dec.Decode(&raw); err != nil {
			return err
		}
		if err := json.Unmarshal(raw, reflect.New(t).Interface()); err != nil && err.Error() == w.msg {
			return err
		}
		return nil
	}
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	switch {
	case tok == json.Delim('{') && target.Kind() == reflect.Struct:
		fields := structFields(target)
		for w.dec.More() {
			key, err := w.key()
			if err != nil {
				return err
			}
			f := fieldNamed(fields, key)
			if f == nil {
				if fmt.Sprintf("json: unknown field %q", key) != w.msg {
					return fmt.Errorf("unknown field %q, not the one reported", key)
				}
				return errUnknownKey
			}
			if err := w.value(f.typ); err != nil {
				return err
			}
		}
	case tok == json.Delim('{') && target.Kind() == reflect.Map:
		for w.dec.More() {
			if _, err := w.key(); err != nil {
				return err
			}
			if err := w.value(target.Elem()); err != nil {
				return err
			}
		}
	case tok == json.Delim('[') && (target.Kind() == reflect.Slice || target.Kind() == reflect.Array):
		for i := 0; w.dec.More(); i++ {
			elem := target.Elem()
			if target.Kind() == reflect.Array && i >= target.Len() {
				elem = reflect.TypeFor[any]() // past a fixed array's end: skipped
			}
			if err := w.value(elem); err != nil {
				return err
			}
		}
	case tok == json.Delim('{') || tok == json.Delim('['):
		// Not decoded into anything with fields (an interface, or a type
		// error): what is inside is not looked at.
		for depth := 1; depth > 0; {
			tok, err := w.dec.Token()
			if err != nil {
				return err
			}
			switch tok {
			case json.Delim('{'), json.Delim('['):
				depth++
			case json.Delim('}'), json.Delim(']'):
				depth--
			}
		}
		return nil
	default:
		return nil // a string, number, bool or null
	}
	_, err = w.dec.Token() // the closing brace or bracket
	return err
}

// key reads an object's key and notes where it ends.
func (w *keyWalker) key() (string, error) {
	tok, err := w.dec.Token()
	if err != nil {
		return "", err
	}
	w.off = w.dec.InputOffset()
	key, _ := tok.(string) // inside an object, the decoder gives only string keys
	return key, nil
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// decodedAs is the type encoding/json decodes a value of type t as,
// through pointers, or nil where t (or a pointer to it) decodes itself.
// Every value it decodes into is addressable, so a named type's pointer
// methods count.
func decodedAs(t reflect.Type) reflect.Type {
	if t.Kind() != reflect.Pointer && t.Name() != "" {
		t = reflect.PointerTo(t)
	}
	for ; t.Kind() == reflect.Pointer; t = t.Elem() {
		if t.Implements(unmarshalerType) || t.Implements(textUnmarshalerType) {
			return nil
		}
	}
	return t
}

// jsonField is a struct field as encoding/json decodes it.
type jsonField struct {
	name   string
	tagged bool  // the name is from the json tag
	index  []int // through embedded structs
	typ    reflect.Type
}

// structFields are the fields encoding/json decodes an object into a
// struct of type t with, in index order, by its rules for json tags and
// embedded structs (encoding/json's typeFields).
func structFields(t reflect.Type) []jsonField {
	var fields, current []jsonField
	next := []jsonField{{typ: t}}
	var count, nextCount map[reflect.Type]int
	visited := map[reflect.Type]bool{}
	for len(next) > 0 {
		current, next = next, nil
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, f := range current {
			if visited[f.typ] {
				continue
			}
			visited[f.typ] = true
			for i := range f.typ.NumField() {
				sf := f.typ.Field(i)
				if sf.Anonymous {
					et := sf.Type
					if et.Kind() == reflect.Pointer {
						et = et.Elem()
					}
					if !sf.IsExported() && et.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, _, _ := strings.Cut(tag, ",")
				if !validTagName(name) {
					name = ""
				}
				index := append(slices.Clip(f.index), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					field := jsonField{name: cmp.Or(name, sf.Name), tagged: name != "", index: index, typ: sf.Type}
					fields = append(fields, field)
					if count[f.typ] > 1 {
						// The same struct embedded twice at one depth: its
						// fields' names conflict.
						fields = append(fields, field)
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, jsonField{index: index, typ: ft})
				}
			}
		}
	}
	// Of the fields of one name, the shallowest wins, a tagged one before
	// one that is not; two alike at the same depth hide each other.
	slices.SortFunc(fields, func(a, b jsonField) int {
		return cmp.Or(strings.Compare(a.name, b.name), cmp.Compare(len(a.index), len(b.index)),
			compareBool(b.tagged, a.tagged), slices.Compare(a.index, b.index))
	})
	var out []jsonField
	for i, f := range fields {
		if i > 0 && fields[i-1].name == f.name {
			continue // not the first of its name
		}
		if i+1 < len(fields) && fields[i+1].name == f.name && len(fields[i+1].index) == len(f.index) && fields[i+1].tagged == f.tagged {
			continue
		}
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b jsonField) int { return slices.Compare(a.index, b.index) })
	return out
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// fieldNamed is the field key decodes into, as encoding/json matches it:
// the one of that name, else the first whose name equals it but for case.
func fieldNamed(fields []jsonField, key string) *jsonField {
	for i := range fields {
		if fields[i].name == key {
			return &fields[i]
		}
	}
	for i := range fields {
		if strings.EqualFold(fields[i].name, key) {
			return &fields[i]
		}
	}
	return nil
}

// validTagName: encoding/json ignores a json tag's name with characters
// other than letters, digits and these punctuation marks.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c) && !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			return false
		}
	}
	return true
}
