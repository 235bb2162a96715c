// Package jsonfile decodes the JSON files servesim writes and reads back
// (summary.json, verify.json, candidates.json) strictly, with errors that
// say on which line.
package jsonfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// DecodeStrict decodes data, one JSON value, into v: unknown fields and
// anything after the value are errors, and syntax and type errors and
// unknown fields say on which line (an unknown field inside a value that
// decodes itself, with its own UnmarshalJSON, is named without one). want
// names the value expected ("a JSON array") in errors.
func DecodeStrict(data []byte, v any, want string) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if _, err := dec.Token(); err != io.EOF {
			return fmt.Errorf("line %d: more data after the JSON value", lineAt(data, dec.InputOffset()))
		}
		// null decodes into anything, leaving it as it was: a file of
		// null is not the value wanted, though it decodes.
		if rest := bytes.TrimLeft(data, " \t\r\n"); string(bytes.TrimRight(rest, " \t\r\n")) == "null" {
			return fmt.Errorf("line %d: want %s, got JSON null", lineAt(data, int64(len(data)-len(rest))), want)
		}
		return nil
	}
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return fmt.Errorf("empty: want %s", want)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("truncated JSON")
	case errors.As(err, &se) && bytes.HasPrefix(data, []byte("\ufeff")):
		// Some editors save one; it reads as a character 'ï'.
		return fmt.Errorf("line 1: a byte-order mark before the JSON: want %s without one", want)
	case errors.As(err, &se) && se.Offset == firstByte(data)+1:
		// Not JSON from its first character: a TOML or CSV file given
		// where JSON is read.
		return fmt.Errorf("line %d: %w: not JSON, want %s", lineAt(data, se.Offset), err, want)
	case errors.As(err, &se):
		return fmt.Errorf("line %d: %w", lineAt(data, se.Offset), err)
	case errors.As(err, &te) && te.Field != "":
		return fmt.Errorf("line %d: %s: want %s, got JSON %s", lineAt(data, te.Offset), te.Field, te.Type, te.Value)
	case errors.As(err, &te):
		return fmt.Errorf("line %d: want %s, got JSON %s", lineAt(data, te.Offset), want, te.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		if line, ok := unknownFieldLine(data, reflect.TypeOf(v), err.Error()); ok {
			return fmt.Errorf("line %d: %s", line, strings.TrimPrefix(err.Error(), "json: "))
		}
	}
	return err
}

// firstByte is the offset of data's first byte that is not JSON's white
// space.
func firstByte(data []byte) int64 {
	return int64(len(data) - len(bytes.TrimLeft(data, " \t\r\n")))
}

// lineAt is the 1-based line of byte offset off in data.
func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

// Lines returns the errors err joins (errors.Join), one per line of its
// message, or err alone.
func Lines(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
