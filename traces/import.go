package traces

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ImportFormat names a public trace format that Import understands.
type ImportFormat string

const (
	FormatAuto     ImportFormat = "auto"     // sniff from the first bytes
	FormatAzure    ImportFormat = "azure"    // Azure LLM inference 2023/2024 CSV
	FormatBurstGPT ImportFormat = "burstgpt" // BurstGPT v1 (6 columns) or v1.2/v2 (8 columns) CSV
	FormatMooncake ImportFormat = "mooncake" // Mooncake FAST'25 JSONL with hash_ids
	FormatVidur    ImportFormat = "vidur"    // Vidur processed-trace CSV
	FormatShareGPT ImportFormat = "sharegpt" // ShareGPT JSON array of conversations
	FormatServesim ImportFormat = "servesim" // servesim's own files, any extension Open knows
)

// ImportFormats lists the concrete formats (not auto) in a stable order.
func ImportFormats() []ImportFormat {
	return []ImportFormat{FormatAzure, FormatBurstGPT, FormatMooncake, FormatVidur, FormatShareGPT, FormatServesim}
}

// formatList is ImportFormats as an error shows them: "azure, burstgpt, ...".
func formatList() string {
	s := ""
	for i, f := range ImportFormats() {
		if i > 0 {
			s += ", "
		}
		s += string(f)
	}
	return s
}

// DefaultMaxTokens is the largest token count an importer accepts in one
// row unless ImportOptions.MaxTokens says otherwise; larger counts are
// reported as absurd rather than imported.
const DefaultMaxTokens = 10_000_000

// MaxBlockSize is the largest prefix-hash block size, in tokens, that a
// trace, synth, the proxy or the simulator accepts: a block longer than
// any prompt never fills, so each row would get one partial-block hash
// that no KV block can share.
const MaxBlockSize = DefaultMaxTokens

// MooncakeBlockSize is the number of tokens behind each Mooncake hash id.
const MooncakeBlockSize = 512

// ShareGPTBytesPerToken is the documented length estimate for ShareGPT
// text: tokens = ceil(UTF-8 bytes / 4), the usual rule of thumb for
// English BPE vocabularies. It is an estimate, not a tokenizer.
const ShareGPTBytesPerToken = 4

// ImportOptions tune an importer. The zero value is valid for every format
// except ShareGPT, which needs a Rate.
type ImportOptions struct {
	// Name is used in error messages ("name:line:col") and Meta.Source;
	// Import sets it to the file path.
	Name string
	// ToolVersion is the servesim build, Meta.ToolVersion of a trace
	// imported from a public format (a servesim file keeps its own).
	ToolVersion string
	// DropFailed drops rows the source marks as failed (BurstGPT rows with
	// 0 response tokens) instead of keeping them with Request.SourceFailed
	// set; Meta records it as drop_failed=true where the format marks
	// failures (BurstGPT, servesim) and, for Import, a row was dropped
	// ("true after_spread_ns=N" from a servesim file spread before).
	DropFailed bool
	// Dropped, when set, counts the rows DropFailed dropped, as they are
	// read: the import says how many without reading the source again.
	Dropped *int64
	// Spread, when > 0, spreads requests that share one arrival time evenly
	// over the following Spread nanoseconds (or up to the next distinct
	// arrival, if that is sooner). Use it for quantized timestamps, e.g.
	// 3 s for the Mooncake conversation trace. Deterministic.
	Spread int64
	// Rate (requests/s) and Seed drive the Poisson arrival process of
	// formats without timestamps (ShareGPT).
	Rate float64
	Seed uint64
	// MaxTokens bounds token counts; 0 means DefaultMaxTokens.
	MaxTokens int32
}

func (o *ImportOptions) maxTokens() int64 {
	if o.MaxTokens > 0 {
		return int64(o.MaxTokens)
	}
	return DefaultMaxTokens
}

func (o *ImportOptions) name() string {
	if o.Name == "" {
		return "input"
	}
	return o.Name
}

// NewImporter returns a streaming Reader over src in a public format (not
// auto or servesim). Memory stays flat whatever the input length: rows are
// parsed one at a time into a reused Request.
//
// Arrivals are nanoseconds from the first row's timestamp; a timestamp
// earlier than the previous row's is an error ("arrival goes back in
// time"). Meta carries Source, the data set's licence and, for Mooncake,
// BlockSize; the checksum is added by Import, which sees the file.
func NewImporter(format ImportFormat, src io.Reader, opt ImportOptions) (Reader, error) {
	var (
		s    rowSource
		err  error
		meta = Meta{Source: string(format)}
	)
	br, ok := src.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(src)
	}
	skipBOM(br)
	src = br
	switch format {
	case FormatAzure:
		s, err = newAzureSource(src, &opt)
	case FormatBurstGPT:
		s, err = newBurstGPTSource(src, &opt)
	case FormatVidur:
		s, err = newVidurSource(src, &opt)
	case FormatMooncake:
		s, err = newMooncakeSource(src, &opt)
		meta.BlockSize = MooncakeBlockSize
	case FormatShareGPT:
		s, err = newShareGPTSource(src, &opt)
		meta.Set("arrival_process", "poisson")
		meta.Set("rate", strconv.FormatFloat(opt.Rate, 'g', -1, 64))
		meta.Set("seed", strconv.FormatUint(opt.Seed, 10))
		meta.Set("length_estimate", "ceil(utf8_bytes/4)")
	case FormatAuto, FormatServesim:
		return nil, fmt.Errorf("%s: format %q needs a file path: use Import", opt.name(), format)
	default:
		return nil, fmt.Errorf("unknown import format %q (want auto, %s)", format, formatList())
	}
	if err != nil {
		return nil, err
	}
	if opt.Name != "" {
		meta.Source = string(format) + ":" + filepath.Base(opt.Name)
	}
	meta.ToolVersion = opt.ToolVersion
	if l := sourceLicence[format]; l != "" {
		meta.Set("licence", l)
	}
	if opt.Spread > 0 {
		meta.Set("spread_ns", strconv.FormatInt(opt.Spread, 10))
	}
	// Fewer rows than the source: say why. Only BurstGPT marks rows failed;
	// in the other formats the option drops nothing, and recording it would
	// name another workload for the same requests.
	if opt.DropFailed && format == FormatBurstGPT {
		meta.Set("drop_failed", "true")
	}
	var r Reader = &importReader{src: s, meta: meta, name: opt.name(), dropFailed: opt.DropFailed, dropped: opt.Dropped}
	r.At().Reset()
	if opt.Spread > 0 {
		r = Spread(r, opt.Spread)
	}
	return r, nil
}

// sourceLicence is each public data set's licence and attribution: an
// imported trace adapts the data, and CC-BY-4.0 wants the attribution to
// travel with it. ShareGPT has none: its licence is the chosen dump's.
var sourceLicence = map[ImportFormat]string{
	FormatAzure:    "CC-BY-4.0, Azure/AzurePublicDataset; Patel et al., Splitwise, ISCA 2024",
	FormatBurstGPT: "CC-BY-4.0, HPMLL/BurstGPT; Wang et al., BurstGPT, KDD 2025",
	FormatMooncake: "Apache-2.0, kvcache-ai/Mooncake; Qin et al., Mooncake, FAST 2025",
	FormatVidur:    "MIT, microsoft/vidur; Agrawal et al., Vidur, MLSys 2024",
}

// DetectFormat returns format, or for FormatAuto (or "") the format
// sniffed from path's first bytes.
func DetectFormat(path string, format ImportFormat) (ImportFormat, error) {
	if format != FormatAuto && format != "" {
		return format, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	format, err = Sniff(bufio.NewReaderSize(f, 4096))
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return format, nil
}

// Import opens path as a trace in format (auto: sniffed from the first
// bytes), records its sha256 in Meta.Checksums and returns a streaming
// Reader. Servesim files are read by Open and checked for order and, as
// every importer does, for token counts above opt's bound; DropFailed and
// Spread apply to them as to the other formats. A recording's partial
// stream (PartialSuffix) gives its rows in arrival order; one whose last
// message was cut short is refused (ErrCutShort): Convert keeps its whole
// rows and ConvertPartial says what was cut.
func Import(path string, format ImportFormat, opt ImportOptions) (Reader, error) {
	if opt.Name == "" {
		opt.Name = path
	}
	format, err := DetectFormat(path, format)
	if err != nil {
		return nil, err
	}
	// The metadata precedes the rows: a file whose format marks failures
	// is read once to know whether any row is dropped. Dropping none is
	// no transformation, and recording it would name another workload.
	if opt.DropFailed && (format == FormatServesim || format == FormatBurstGPT) {
		if opt.DropFailed, err = AnyFailed(path, format, opt); err != nil {
			return nil, err
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	sum, err := checksum(f, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	if format == FormatServesim {
		f.Close()
		open := Open
		if isPartial(path) { // a killed recording's rows, refused if cut short
			open = importPartial
		}
		r, err := open(path)
		if err != nil {
			return nil, err
		}
		var rd Reader = &orderChecker{Reader: r, name: path, maxTokens: opt.maxTokens()}
		if opt.DropFailed {
			rd = &failedDropper{Reader: rd, arrivalsOnly: offArrivalClock(rd.Meta()), dropped: opt.Dropped}
		}
		m := rd.Meta().Clone()
		// A file converted from another format, or a synthetic file's
		// slice or scale, holds its source's rows, which the source's
		// checksum already names: a run on either fed one workload.
		// Anything else is identified by its own bytes.
		if !IsConversion(m) {
			addChecksum(&m, filepath.Base(path), sum)
		}
		if opt.DropFailed {
			// Dropped after an earlier spread, the failed rows leave the
			// gaps they were spread into: not the rows a spread of the
			// kept ones makes. Say which it was, as Slice does.
			v := "true"
			if sp := m.Extra["spread_ns"]; sp != "" {
				v += " after_spread_ns=" + sp
			}
			m.Set("drop_failed", v)
		}
		if opt.Spread > 0 {
			// An earlier spread still shapes the arrivals: keep it, as
			// Slice and Scale keep theirs. A spread on a scaled clock is
			// not the same spread scaled afterwards: say which it was, as
			// Slice does.
			v := strconv.FormatInt(opt.Spread, 10)
			if sc := scaleProduct(m.Extra["time_scale"]); sc != "" {
				v += " at_time_scale=" + sc
			}
			if prev := m.Extra["spread_ns"]; prev != "" {
				v = prev + "; " + v
			}
			m.Set("spread_ns", v)
			asInput(&m) // Spread clears the observed columns
			rd = Spread(rd, opt.Spread)
		}
		return &metaReader{Reader: rd, meta: m}, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	r, err := NewImporter(format, bufio.NewReaderSize(f, 1<<20), opt)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &fileImport{Reader: r, f: f, sum: sum, base: filepath.Base(path)}, nil
}

// addChecksum records sum under file in m or, where file already names
// another's checksum (an input of the same name), under file#2 (#3, ...):
// neither replaces the other.
func addChecksum(m *Meta, file, sum string) {
	name := file
	for i := 2; ; i++ {
		if prev, ok := m.Checksums[name]; !ok || SHA256Hex(prev) == SHA256Hex(sum) {
			break
		}
		name = file + "#" + strconv.Itoa(i)
	}
	m.SetChecksum(name, sum)
}

// AnyFailed says whether path, in format, holds a row its source marks
// failed: whether --drop-failed drops anything from it.
func AnyFailed(path string, format ImportFormat, opt ImportOptions) (bool, error) {
	opt.DropFailed, opt.Spread = false, 0
	r, err := Import(path, format, opt)
	if err != nil {
		return false, err
	}
	defer r.Close()
	for r.Next() {
		if r.At().SourceFailed {
			return true, nil
		}
	}
	return false, r.Err()
}

// IsConversion says whether m describes the rows of the one file it has
// a checksum of, imported from another format or synthesized, and at most
// sliced, scaled, spread or rid of its failed rows since, which Workload
// records: a run on such a file names its source's checksum, not the
// file's own, and the workload tells a slice from the whole.
func IsConversion(m Meta) bool {
	if m.Source == synthSource {
		return isSynthDerivative(m)
	}
	format, name, ok := strings.Cut(m.Source, ":")
	if !ok || ImportFormat(format) == FormatServesim || !slices.Contains(ImportFormats(), ImportFormat(format)) {
		return false
	}
	_, ok = m.Checksums[name]
	return ok && len(m.Checksums) == 1
}

// isSynthDerivative says whether synthetic m holds a synthetic file's rows:
// synthesis names no file, so its one checksum is that of the file read to
// slice or scale it, unless its lengths were resampled from that file.
func isSynthDerivative(m Meta) bool {
	_, resampled := m.Extra["lengths"]
	return len(m.Checksums) == 1 && !resampled
}

// fileImport adds the input checksum to Meta and closes the file.
type fileImport struct {
	Reader
	f         *os.File
	sum, base string
}

func (r *fileImport) Meta() Meta {
	m := r.Reader.Meta().Clone()
	m.SetChecksum(r.base, r.sum)
	return m
}

// Err is the import's error; one at a byte offset is located in the file
// by line and column.
func (r *fileImport) Err() error {
	err := r.Reader.Err()
	var oe *offsetError
	if errors.As(err, &oe) && oe.line == 0 {
		oe.locate(r.f)
	}
	return err
}

func (r *fileImport) Close() error { return errors.Join(r.Reader.Close(), r.f.Close()) }

// rowSource is one format's parser. next fills r (already Reset) from the
// next source row and returns the row's timestamp in ns on the source's
// own clock and its line number; io.EOF ends the input. Errors already
// name the position.
type rowSource interface {
	next(r *Request) (ts int64, line int, err error)
}

// stampLocator is a rowSource that can name where its current row's
// timestamp lies.
type stampLocator interface {
	// stampPos is ":col (field)" of the current row's timestamp, or ""
	// where it cannot be found.
	stampPos() string
}

// stampPos is src's stampPos, "" for a source without timestamps.
func stampPos(src rowSource) string {
	if l, ok := src.(stampLocator); ok {
		return l.stampPos()
	}
	return ""
}

// importReader turns a rowSource into a Reader: it re-bases timestamps to
// the first row, enforces order and validates every row.
type importReader struct {
	src        rowSource
	meta       Meta
	name       string
	dropFailed bool
	dropped    *int64 // ImportOptions.Dropped
	cur        Request
	started    bool // a row was read: prev is set
	based      bool // a row was kept: t0 is set
	t0, prev   int64
	err        error
}

func (r *importReader) Meta() Meta   { return r.meta }
func (r *importReader) At() *Request { return &r.cur }
func (r *importReader) Err() error   { return r.err }
func (r *importReader) Close() error { return nil }

func (r *importReader) Next() bool {
	for r.err == nil {
		r.cur.Reset()
		ts, line, err := r.src.next(&r.cur)
		if err == io.EOF {
			return false
		}
		if err != nil {
			r.err = err
			return false
		}
		if !r.started {
			r.started, r.prev = true, ts
		}
		if ts < r.prev {
			r.err = fmt.Errorf("%s:%d%s: arrival goes back in time: want a timestamp at or after the previous row's, got one %s before it",
				r.name, line, stampPos(r.src), time.Duration(r.prev-ts))
			return false
		}
		r.prev = ts
		if r.dropFailed && r.cur.SourceFailed {
			countDrop(r.dropped)
			continue
		}
		// The trace starts at the first row kept, not at a dropped one.
		if !r.based {
			r.based, r.t0 = true, ts
		}
		r.cur.Arrival = ts - r.t0
		if err := r.cur.validate(); err != nil {
			r.err = fmt.Errorf("%s:%d: %w", r.name, line, err)
			return false
		}
		return true
	}
	return false
}

// failedDropper skips rows the source marked as failed. As the importers
// do, the trace starts at the first row kept: dropped leading rows move
// every later time back to where the first row was, but for the observed
// times of a recording on its own clock (arrivalsOnly), which did not
// start with the arrivals.
type failedDropper struct {
	Reader
	arrivalsOnly bool
	dropped      *int64 // ImportOptions.Dropped
	seen, kept   bool
	start        int64 // the first row's arrival
	shift        int64
}

func (d *failedDropper) Next() bool {
	for d.Reader.Next() {
		r := d.Reader.At()
		if !d.seen {
			d.seen, d.start = true, r.Arrival
		}
		if r.SourceFailed {
			countDrop(d.dropped)
			continue
		}
		if !d.kept {
			d.kept, d.shift = true, d.start-r.Arrival
		}
		if d.arrivalsOnly {
			r.Arrival += d.shift
		} else {
			shiftTimes(r, d.shift)
		}
		return true
	}
	return false
}

// countDrop counts a dropped row where the caller asked for the count.
func countDrop(n *int64) {
	if n != nil {
		*n++
	}
}

// metaReader replaces r's metadata.
type metaReader struct {
	Reader
	meta Meta
}

func (r *metaReader) Meta() Meta { return r.meta }

// CheckOrder wraps r so that an arrival earlier than the previous row's is
// an error naming the row (by its line in a CSV or JSONL file); name
// prefixes the message.
func CheckOrder(r Reader, name string) Reader { return &orderChecker{Reader: r, name: name} }

type orderChecker struct {
	Reader
	name      string
	maxTokens int64 // 0: no bound (CheckOrder); Import bounds servesim files as it does other formats
	row       int
	prev      int64
	err       error
}

func (c *orderChecker) Next() bool {
	if c.err != nil || !c.Reader.Next() {
		return false
	}
	c.row++
	a := c.Reader.At().Arrival
	if c.row > 1 && a < c.prev {
		c.err = fmt.Errorf("%s: %s: %s: arrival goes back in time: want an arrival at or after the previous row's, got one %s before it",
			c.name, c.where(), ColArrival, time.Duration(c.prev-a))
		return false
	}
	c.prev = a
	if c.maxTokens <= 0 {
		return true
	}
	q := c.Reader.At()
	for _, col := range []struct {
		name string
		n    int32
	}{{ColPromptTokens, q.PromptTokens}, {ColOutputTokens, q.OutputTokens}} {
		if int64(col.n) > c.maxTokens {
			c.err = fmt.Errorf("%s: %s: %s: want a token count of at most %d (larger is absurd), got %d", c.name, c.where(), col.name, c.maxTokens, col.n)
			return false
		}
	}
	return true
}

// where names the current row as the file's other errors do: by its line
// in a text file, where metadata lines put row N below line N; else by
// its position.
func (c *orderChecker) where() string {
	if line := rowLine(c.Reader); line > 0 {
		return fmt.Sprintf("line %d", line)
	}
	return fmt.Sprintf("row %d", c.row)
}

func (c *orderChecker) Err() error {
	if c.err != nil {
		return c.err
	}
	return c.Reader.Err()
}
