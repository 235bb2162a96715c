package replay

import (
	"encoding"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/servesim/servesim/internal/tomlkeys"
)

// tomlTypeError finds the key of data (decoded as md) whose value's type
// does not fit its setting, and says so in the words a JSON file's error
// uses: the decoder's own error names Go types ("destination has type
// string"). nil when no key's value is at fault.
func tomlTypeError(data string, md toml.MetaData) (toml.Key, error) {
	var raw map[string]any
	if _, err := toml.Decode(data, &raw); err != nil {
		return nil, nil
	}
	for _, k := range md.Keys() {
		t, ok := settingFieldType(k)
		if !ok {
			continue
		}
		v := tomlkeys.Value(raw, k)
		if v == nil || tomlFits(v, t) {
			continue
		}
		return k, fmt.Errorf("%q: want %s, got TOML %s", k.String(), settingType(t, "TOML"), describeTOML(v))
	}
	return nil, nil
}

// tomlDecoderError rewords err, from decoding data as md, where a
// setting's own decoder (a duration's, the SLO's, the salt's) refused
// the value of key: the decoder prefixes it with "toml: line 1 (last key
// …)", where a JSON file's error names the key alone. nil when err is
// not one of those.
func tomlDecoderError(md toml.MetaData, err error) (toml.Key, error) {
	var pe toml.ParseError
	if !errors.As(err, &pe) || pe.LastKey == "" {
		return nil, nil
	}
	for _, k := range md.Keys() {
		if k.String() != pe.LastKey {
			continue
		}
		if t, ok := settingFieldType(k); ok && decodesItself(t) {
			return k, fmt.Errorf("%q: %s", k.String(), pe.Message)
		}
		return nil, nil
	}
	return nil, nil
}

// decodesItself reports whether a setting of type t is read by its own
// method rather than by the TOML decoder.
func decodesItself(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return p.Implements(reflect.TypeFor[encoding.TextUnmarshaler]()) || p.Implements(reflect.TypeFor[toml.Unmarshaler]())
}

// settingFieldType is the type of the fileSettings field that key sets.
func settingFieldType(key toml.Key) (reflect.Type, bool) {
	return tomlkeys.FieldType(reflect.TypeFor[fileSettings](), key)
}

// tomlFits reports whether the decoder would take v into a value of type
// t as far as types go; a table fits a struct whatever its keys, which
// are checked one by one. Only type errors count: a value that fits but
// is refused (a bad duration) keeps its own error.
func tomlFits(v any, t reflect.Type) bool {
	switch {
	case t == reflect.TypeFor[salt]():
		// Its UnmarshalTOML takes any value and refuses all but an integer.
		_, ok := v.(int64)
		return ok
	case reflect.PointerTo(t).Implements(reflect.TypeFor[encoding.TextUnmarshaler]()):
		// The decoder hands it any value's text (5 as "5"), so a wrong type
		// would read as a bad duration or SLO.
		_, ok := v.(string)
		return ok
	case t.Kind() == reflect.Struct:
		_, ok := v.(map[string]any)
		return ok
	}
	probe := reflect.New(reflect.StructOf([]reflect.StructField{{Name: "V", Type: t, Tag: `toml:"v"`}}))
	text, err := toml.Marshal(map[string]any{"v": v})
	if err != nil {
		return true
	}
	_, err = toml.Decode(string(text), probe.Interface())
	return err == nil || !strings.Contains(err.Error(), "incompatible types")
}

// describeTOML names v's TOML type, with the value where it is short.
func describeTOML(v any) string {
	switch v := v.(type) {
	case int64:
		return fmt.Sprintf("integer %d", v)
	case float64:
		return fmt.Sprintf("float %v", v)
	case bool:
		return fmt.Sprintf("boolean %v", v)
	case string:
		return "string"
	case map[string]any:
		return "table"
	case []any, []map[string]any:
		return "array"
	}
	return "datetime"
}
