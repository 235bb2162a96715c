//lint:file-ignore SA5008 some tags are malformed on purpose: that encoding/json reads them as the walk does is under test

package jsonfile

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

type (
	FieldsA struct {
		X, Y int
		Z    int `json:"z"`
	}
	FieldsB struct {
		X int
		Y int `json:"Y"`
		Z int `json:"Z"`
	}
	FieldsC struct{ FieldsA }
	FieldsD struct{ FieldsA }
	fieldsE struct{ E int }
	FieldsF int
)

// The fields structFields finds are the ones encoding/json decodes into,
// for the ways json tags and embedded structs hide names.
func TestStructFieldsAsEncodingJSON(t *testing.T) {
	keys := []string{"X", "x", "Y", "y", "Z", "z", "W", "E", "e", "FieldsA", "FieldsF", "fieldsE", "a-b", "a\"b", "-", "V", "\u212a", "K"}
	for _, v := range []any{
		&struct {
			FieldsA
			FieldsB
		}{},
		&struct {
			FieldsA
			*FieldsB
			X int
		}{},
		// FieldsA twice at one depth (built, as vet refuses the json tags
		// it repeats written out).
		reflect.New(reflect.StructOf([]reflect.StructField{
			{Name: "FieldsC", Type: reflect.TypeFor[FieldsC](), Anonymous: true},
			{Name: "FieldsD", Type: reflect.TypeFor[FieldsD](), Anonymous: true},
		})).Interface(),
		&struct {
			FieldsC
			FieldsA
		}{},
		&struct {
			fieldsE
			FieldsF
			W int `json:"a-b"`
			V int `json:"a\"b"`
			U int `json:"-,"`
			T int `json:"-"`
			K int
		}{},
		&struct {
			FieldsA `json:"a"`
			FieldsB `json:",omitempty"`
		}{},
	} {
		fields := structFields(reflect.TypeOf(v).Elem())
		for _, key := range keys {
			err := json.Unmarshal([]byte(fmt.Sprintf("{%q: null}", key)), v)
			jsonUnknown := err != nil
			if err == nil {
				dec := json.NewDecoder(strings.NewReader(fmt.Sprintf("{%q: null}", key)))
				dec.DisallowUnknownFields()
				jsonUnknown = dec.Decode(v) != nil
			}
			if got := fieldNamed(fields, key) == nil; got != jsonUnknown {
				t.Errorf("%T: key %q unknown = %v, encoding/json says %v", v, key, got, jsonUnknown)
			}
		}
	}
}
