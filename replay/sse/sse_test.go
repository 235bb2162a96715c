package sse

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

type event struct{ typ, data string }

// reference parses a whole stream the way the standard's algorithm is
// written: split into lines first, then a data buffer to which each data
// line's value and a LF are appended, the last LF removed on dispatch.
// Lines over max bytes (max > 0) are dropped, as Splitter does; a
// byte-order mark counts towards its line's length.
func reference(stream []byte, max int) []event {
	var lines [][]byte
	for len(stream) > 0 {
		i := bytes.IndexAny(stream, "\r\n")
		if i < 0 {
			lines = append(lines, stream)
			break
		}
		lines = append(lines, stream[:i])
		if stream[i] == '\r' && i+1 < len(stream) && stream[i+1] == '\n' {
			i++
		}
		stream = stream[i+1:]
	}
	lines = append(lines, nil) // End: the open event is delivered
	var (
		evs       []event
		typ, data string
	)
	for i, l := range lines {
		line := string(l)
		if i == 0 && (max == 0 || len(line) <= max) {
			line = strings.TrimPrefix(line, string(bom))
		}
		switch {
		case max > 0 && len(l) > max:
		case line == "":
			if data != "" {
				evs = append(evs, event{typ, data[:len(data)-1]})
			}
			typ, data = "", ""
		case line[0] == ':':
		default:
			field, value := line, ""
			if i := strings.IndexByte(line, ':'); i >= 0 {
				field, value = line[:i], line[i+1:]
				if len(value) > 0 && value[0] == ' ' {
					value = value[1:]
				}
			}
			switch field {
			case "data":
				data += value + "\n"
			case "event":
				typ = value
			case "error":
				typ, data = "error", data+value+"\n"
			}
		}
	}
	return evs
}

// split feeds stream to a Splitter in pieces ending at the given offsets.
func split(stream []byte, cuts []int, max int) ([]event, int) {
	s := Splitter{MaxLine: max}
	var evs []event
	emit := func(typ, data []byte) bool {
		evs = append(evs, event{string(typ), string(data)})
		return true
	}
	at := 0
	for _, c := range append(cuts, len(stream)) {
		if c < at || c > len(stream) {
			continue
		}
		s.Feed(stream[at:c], emit)
		at = c
	}
	s.End(emit)
	return evs, s.Dropped
}

func TestSplitter(t *testing.T) {
	for _, c := range []struct {
		name, stream string
		max          int
		want         []event
	}{
		{"LF", "data: a\n\ndata: b\n\n", 0, []event{{"", "a"}, {"", "b"}}},
		{"CRLF", "data: a\r\n\r\ndata: b\r\n\r\n", 0, []event{{"", "a"}, {"", "b"}}},
		{"lone CR", "data: a\r\rdata: b\r\r", 0, []event{{"", "a"}, {"", "b"}}},
		{"CR CR LF is a line and a blank line", "data: a\r\r\ndata: b\n\n", 0, []event{{"", "a"}, {"", "b"}}},
		{"multi-line data", "data: a\ndata:b\ndata\n\n", 0, []event{{"", "a\nb\n"}}},
		{"only one space dropped", "data:  a \n\n", 0, []event{{"", " a "}}},
		{"event type, reset after each event", "event: error\ndata: x\n\ndata: y\n\n", 0, []event{{"error", "x"}, {"", "y"}}},
		{"event without data is not delivered and its type is forgotten", "event: ping\n\ndata: y\n\n", 0, []event{{"", "y"}}},
		{"comments, id, retry and unknown fields skipped", ": keep-alive\nid: 7\nretry: 10\nfoo: bar\ndata: z\n\n", 0, []event{{"", "z"}}},
		{"byte-order mark", "\xEF\xBB\xBFdata: a\n\n", 0, []event{{"", "a"}}},
		{"a mark after the start is part of the line", "\n\xEF\xBB\xBFdata: a\n\n", 0, nil},
		{"open event at the end", "data: a\n\ndata: [DONE]", 0, []event{{"", "a"}, {"", "[DONE]"}}},
		{"empty data is an event", "data\n\n", 0, []event{{"", ""}}},
		{"an error line is an error event (llama.cpp)", "data: a\n\nerror: {\"message\":\"m\"}\n\ndata: [DONE]\n\n", 0, []event{{"", "a"}, {"error", `{"message":"m"}`}, {"", "[DONE]"}}},
		{"overlong line dropped", "data: 0123456789\n\ndata: ok\n\n", 8, []event{{"", "ok"}}},
	} {
		got, _ := split([]byte(c.stream), nil, c.max)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q gives %q, want %q", c.name, c.stream, got, c.want)
		}
		// Every way of cutting it in two gives the same events.
		for i := range len(c.stream) {
			if cut, _ := split([]byte(c.stream), []int{i}, c.max); !reflect.DeepEqual(cut, got) {
				t.Errorf("%s: cut at %d gives %q, whole %q", c.name, i, cut, got)
			}
		}
	}
}

func TestSplitterCRAtReadEnd(t *testing.T) {
	// The CR ends one read and its LF starts the next: one line end, not two
	// (two would be a blank line, which ends the event early).
	got, _ := split([]byte("data: a\r\ndata: b\r\n\r\n"), []int{8}, 0)
	if want := []event{{"", "a\nb"}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestSplitterDropped(t *testing.T) {
	long := "data: " + string(bytes.Repeat([]byte("x"), 40))
	stream := long + "\n\n" + long + "\ndata: y\n\n"
	for _, cuts := range [][]int{nil, {3}, {10, 20, 30}} {
		got, dropped := split([]byte(stream), cuts, 16)
		if want := []event{{"", "y"}}; !reflect.DeepEqual(got, want) || dropped != 2 {
			t.Errorf("cuts %v: %q, %d dropped; want %q, 2", cuts, got, dropped, want)
		}
	}
}

func TestSplitterStops(t *testing.T) {
	var s Splitter
	n := 0
	emit := func(_, data []byte) bool { n++; return string(data) != "stop" }
	if s.Feed([]byte("data: a\n\ndata: stop\n\ndata: c\n\n"), emit) {
		t.Fatal("Feed went on after emit returned false")
	}
	if n != 2 {
		t.Fatalf("%d events delivered, want 2", n)
	}
}

func TestSplitterReset(t *testing.T) {
	s := Splitter{MaxLine: 64}
	s.Feed([]byte("event: error\ndata: half"), func(_, _ []byte) bool { return true })
	s.Reset()
	var got []event
	s.Feed([]byte("data: b\n\n"), func(typ, data []byte) bool {
		got = append(got, event{string(typ), string(data)})
		return true
	})
	if want := []event{{"", "b"}}; !reflect.DeepEqual(got, want) || s.MaxLine != 64 {
		t.Fatalf("after Reset: %q, MaxLine %d; want %q, 64", got, s.MaxLine, want)
	}
}

// FuzzSplitter checks, for any stream cut into reads anywhere, that the
// Splitter gives the events the whole-stream reference does.
func FuzzSplitter(f *testing.F) {
	for _, s := range []string{
		"data: {\"choices\":[]}\n\ndata: [DONE]\n\n",
		"data: a\r\n\r\nevent: error\r\ndata: b\r\n\r\n",
		"data: a\r\rdata: b\r",
		"\xEF\xBB\xBF: hi\ndata\ndata: x\n\n",
		"data: a\r\r\n\r\n",
	} {
		f.Add([]byte(s), []byte{3, 9}, uint8(0))
		f.Add([]byte(s), []byte{1}, uint8(8))
	}
	f.Fuzz(func(t *testing.T, stream, cutBytes []byte, max uint8) {
		cuts, at := []int(nil), 0
		for _, c := range cutBytes {
			at += int(c % 32)
			cuts = append(cuts, at)
		}
		m := int(max % 40)
		got, _ := split(stream, cuts, m)
		if want := reference(stream, m); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q cut at %v, MaxLine %d: %q, reference %q", stream, cuts, m, got, want)
		}
	})
}

func TestIsDone(t *testing.T) {
	for data, want := range map[string]bool{
		"[DONE]": true, "[DONE]  ": true, "[DONE]\t": true, " [DONE] ": true,
		"": false, "[DONE]x": false, "[done]": false, "[DONE]\n[DONE]": false, `{"choices":[]}`: false,
	} {
		if got := IsDone([]byte(data)); got != want {
			t.Errorf("IsDone(%q) = %v, want %v", data, got, want)
		}
	}
}

// A later reason replaces an earlier one, but never an engine abort, and
// an empty one replaces nothing.
func TestLaterFinish(t *testing.T) {
	for _, c := range []struct{ cur, next, want string }{
		{"", "stop", "stop"},
		{"length", "stop", "stop"},
		{"stop", "", "stop"},
		{"abort", "stop", "abort"},
		{"error", "length", "error"},
		{"stop", "abort", "abort"},
	} {
		if got := LaterFinish(c.cur, c.next); got != c.want {
			t.Errorf("%q then %q: kept %q, want %q", c.cur, c.next, got, c.want)
		}
		if got := LaterFinish([]byte(c.cur), []byte(c.next)); string(got) != c.want {
			t.Errorf("%q then %q as bytes: kept %q, want %q", c.cur, c.next, got, c.want)
		}
	}
}
