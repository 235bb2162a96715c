package traces

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Sniff guesses a trace's format from its first bytes (at most 4 KiB are
// peeked; nothing is consumed from br):
//
//   - "PAR1", "ARROW1" or an Arrow IPC stream prefix: servesim
//   - '[': ShareGPT
//   - '{': Mooncake when the first object has "hash_ids" or
//     "input_length", servesim JSONL when it has "meta" or "arrival_ns"
//   - '#': servesim CSV (metadata comments)
//   - a CSV header: Azure (TIMESTAMP, ContextTokens), BurstGPT
//     ("Request tokens"), Vidur (arrived_at) or servesim (arrival_ns)
//
// A first line with the fields of two formats is refused, naming both.
func Sniff(br *bufio.Reader) (ImportFormat, error) {
	head, err := br.Peek(4096)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return "", err
	}
	head = bytes.TrimPrefix(head, []byte("\ufeff"))
	if bytes.HasPrefix(head, []byte("PAR1")) || bytes.HasPrefix(head, []byte("ARROW1")) ||
		bytes.HasPrefix(head, []byte{0xff, 0xff, 0xff, 0xff}) {
		return FormatServesim, nil
	}
	trimmed := bytes.TrimLeft(head, " \t\r\n")
	if len(trimmed) == 0 {
		return "", fmt.Errorf("cannot sniff the format of an empty input")
	}
	first := trimmed
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	line := strings.TrimSpace(string(first))
	switch trimmed[0] {
	case '[':
		return FormatShareGPT, nil
	case '{':
		if strings.HasPrefix(line, `{"meta"`) {
			return FormatServesim, nil
		}
		return sniffOne(line,
			sniffCandidate{FormatMooncake, strings.Contains(line, `"hash_ids"`) || strings.Contains(line, `"input_length"`)},
			sniffCandidate{FormatServesim, strings.Contains(line, `"arrival_ns"`)},
		)
	case '#':
		return FormatServesim, nil
	}
	cols := map[string]bool{}
	for _, c := range strings.Split(line, ",") {
		cols[strings.ToLower(strings.Trim(strings.TrimSpace(c), `"`))] = true
	}
	return sniffOne(line,
		sniffCandidate{FormatAzure, cols["timestamp"] && cols["contexttokens"]},
		sniffCandidate{FormatBurstGPT, cols["request tokens"]},
		sniffCandidate{FormatVidur, cols["arrived_at"]},
		sniffCandidate{FormatServesim, cols["arrival_ns"]},
	)
}

type sniffCandidate struct {
	format ImportFormat
	fits   bool
}

// sniffOne returns the one candidate whose columns the first line has. A
// line that fits two is refused: the formats read arrivals from different
// columns, so picking either could import wrong times.
func sniffOne(line string, cands ...sniffCandidate) (ImportFormat, error) {
	var fits []string
	for _, c := range cands {
		if c.fits {
			fits = append(fits, string(c.format))
		}
	}
	switch len(fits) {
	case 1:
		return ImportFormat(fits[0]), nil
	case 0:
		if strings.HasPrefix(line, "{") {
			return "", fmt.Errorf("cannot sniff the format: a JSON line with neither Mooncake (hash_ids, input_length) nor servesim (meta, arrival_ns) fields: %.80q", line)
		}
		return "", fmt.Errorf("cannot sniff the format from the first line %.80q: name it with --format (%s)", line, formatList())
	}
	return "", fmt.Errorf("cannot sniff the format: the first line %.80q has the columns of %s: name it with --format", line, strings.Join(fits, " and "))
}

// utf8BOM is the byte-order mark some editors put before UTF-8 text.
const utf8BOM = "\ufeff"

// skipBOM drops a leading UTF-8 byte-order mark from br, as Sniff looks
// past one: the readers of every format it names must too.
func skipBOM(br *bufio.Reader) {
	if b, err := br.Peek(len(utf8BOM)); err == nil && string(b) == utf8BOM {
		br.Discard(len(utf8BOM))
	}
}
