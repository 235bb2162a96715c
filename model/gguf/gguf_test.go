package gguf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// parsed is what the minimal test reader extracts from a GGUF file.
type parsed struct {
	version   uint32
	kv        map[string]any
	keys      []string
	tensors   []tensorInfo
	dataStart int64
}

type tensorInfo struct {
	name   string
	shape  []uint64
	typ    TensorType
	offset uint64
}

// reader is an independent minimal GGUF v3 reader used to check the writer.
type reader struct {
	r   *bytes.Reader
	err error
}

func (r *reader) read(n int) []byte {
	b := make([]byte, n)
	if r.err == nil {
		_, r.err = io.ReadFull(r.r, b)
	}
	return b
}
func (r *reader) u8() uint8   { return r.read(1)[0] }
func (r *reader) u16() uint16 { return binary.LittleEndian.Uint16(r.read(2)) }
func (r *reader) u32() uint32 { return binary.LittleEndian.Uint32(r.read(4)) }
func (r *reader) u64() uint64 { return binary.LittleEndian.Uint64(r.read(8)) }
func (r *reader) str() string {
	n := r.u64()
	if n > 1<<20 {
		r.err = fmt.Errorf("string length %d", n)
		return ""
	}
	return string(r.read(int(n)))
}

func (r *reader) scalar(t ValueType) any {
	switch t {
	case TypeUint8:
		return r.u8()
	case TypeInt8:
		return int8(r.u8())
	case TypeUint16:
		return r.u16()
	case TypeInt16:
		return int16(r.u16())
	case TypeUint32:
		return r.u32()
	case TypeInt32:
		return int32(r.u32())
	case TypeFloat32:
		return math.Float32frombits(r.u32())
	case TypeBool:
		return r.u8() != 0
	case TypeString:
		return r.str()
	case TypeUint64:
		return r.u64()
	case TypeInt64:
		return int64(r.u64())
	case TypeFloat64:
		return math.Float64frombits(r.u64())
	}
	r.err = fmt.Errorf("bad value type %d", t)
	return nil
}

// value reads a typed value; arrays become slices of the element Go type.
func (r *reader) value(t ValueType) any {
	if t != TypeArray {
		return r.scalar(t)
	}
	et, n := ValueType(r.u32()), r.u64()
	if r.err != nil || n > 1<<24 {
		r.err = errors.Join(r.err, fmt.Errorf("bad array length %d", n))
		return nil
	}
	var s reflect.Value
	switch et {
	case TypeUint8:
		s = reflect.ValueOf([]uint8{})
	case TypeInt8:
		s = reflect.ValueOf([]int8{})
	case TypeUint16:
		s = reflect.ValueOf([]uint16{})
	case TypeInt16:
		s = reflect.ValueOf([]int16{})
	case TypeUint32:
		s = reflect.ValueOf([]uint32{})
	case TypeInt32:
		s = reflect.ValueOf([]int32{})
	case TypeFloat32:
		s = reflect.ValueOf([]float32{})
	case TypeBool:
		s = reflect.ValueOf([]bool{})
	case TypeString:
		s = reflect.ValueOf([]string{})
	case TypeUint64:
		s = reflect.ValueOf([]uint64{})
	case TypeInt64:
		s = reflect.ValueOf([]int64{})
	case TypeFloat64:
		s = reflect.ValueOf([]float64{})
	default:
		r.err = fmt.Errorf("bad array element type %d", et)
		return nil
	}
	for range n {
		s = reflect.Append(s, reflect.ValueOf(r.scalar(et)))
	}
	return s.Interface()
}

func parse(b []byte) (*parsed, error) {
	r := &reader{r: bytes.NewReader(b)}
	if string(r.read(4)) != Magic {
		return nil, errors.New("bad magic")
	}
	p := &parsed{version: r.u32(), kv: map[string]any{}}
	nt, nkv := r.u64(), r.u64()
	for range nkv {
		k := r.str()
		p.keys = append(p.keys, k)
		p.kv[k] = r.value(ValueType(r.u32()))
	}
	for range nt {
		ti := tensorInfo{name: r.str()}
		nd := r.u32()
		for range nd {
			ti.shape = append(ti.shape, r.u64())
		}
		ti.typ = TensorType(r.u32())
		ti.offset = r.u64()
		p.tensors = append(p.tensors, ti)
	}
	if r.err != nil {
		return nil, r.err
	}
	pos := int64(len(b)) - int64(r.r.Len())
	p.dataStart = (pos + Alignment - 1) / Alignment * Alignment
	return p, nil
}

func TestWriteRoundTrip(t *testing.T) {
	kvs := []KV{
		{"u8", uint8(7)}, {"i8", int8(-7)}, {"u16", uint16(700)}, {"i16", int16(-700)},
		{"u32", uint32(70000)}, {"i32", int32(-70000)}, {"f32", float32(1.5)}, {"bool", true},
		{"str", "héllo"}, {"u64", uint64(1 << 40)}, {"i64", int64(-1 << 40)}, {"f64", 2.25},
		{"strs", []string{"a", "", "ĠĊ"}}, {"empty", []string{}}, {"i32s", []int32{1, -2, 3}},
		{"f32s", []float32{0.5, -1}}, {"u64s", []uint64{9}}, {"bools", []bool{true, false}},
	}
	data := func(n int, b byte) func(io.Writer) error {
		return func(w io.Writer) error { _, err := w.Write(bytes.Repeat([]byte{b}, n)); return err }
	}
	tensors := []Tensor{
		{Name: "a", Shape: []uint64{3}, Type: TensorF32, Data: data(12, 1)},
		{Name: "b", Shape: []uint64{5, 3}, Type: TensorF16, Data: data(30, 2)},
		{Name: "c", Shape: []uint64{16}, Type: TensorF16, Data: data(32, 3)},
	}
	var buf bytes.Buffer
	if err := Write(&buf, kvs, tensors); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	p, err := parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if p.version != 3 {
		t.Errorf("version %d", p.version)
	}
	if p.keys[0] != "general.alignment" || p.kv["general.alignment"] != uint32(32) {
		t.Errorf("alignment key: %v %v", p.keys[0], p.kv["general.alignment"])
	}
	for _, kv := range kvs {
		if !reflect.DeepEqual(p.kv[kv.Key], kv.Value) {
			t.Errorf("%s: got %#v want %#v", kv.Key, p.kv[kv.Key], kv.Value)
		}
	}
	wantOff := []uint64{0, 32, 64}
	for i, ti := range p.tensors {
		if ti.name != tensors[i].Name || !reflect.DeepEqual(ti.shape, tensors[i].Shape) ||
			ti.typ != tensors[i].Type || ti.offset != wantOff[i] {
			t.Errorf("tensor %d: %+v", i, ti)
		}
		start := p.dataStart + int64(ti.offset)
		if start%Alignment != 0 {
			t.Errorf("tensor %s starts at %d", ti.name, start)
		}
		got := b[start : start+int64(tensors[i].Size())]
		if !bytes.Equal(got, bytes.Repeat([]byte{byte(i + 1)}, len(got))) {
			t.Errorf("tensor %s data mismatch", ti.name)
		}
	}
	if int64(len(b)) != p.dataStart+96 {
		t.Errorf("file size %d, want %d", len(b), p.dataStart+96)
	}
}

func TestWriteErrors(t *testing.T) {
	short := Tensor{Name: "x", Shape: []uint64{4}, Type: TensorF32, Data: func(w io.Writer) error {
		_, err := w.Write(make([]byte, 8))
		return err
	}}
	if err := Write(io.Discard, nil, []Tensor{short}); err == nil || !strings.Contains(err.Error(), "wrote 8 bytes") {
		t.Errorf("short tensor: %v", err)
	}
	if err := Write(io.Discard, []KV{{"k", struct{}{}}}, nil); err == nil {
		t.Error("unsupported value type accepted")
	}
	if err := Write(io.Discard, []KV{{"general.alignment", uint32(64)}}, nil); err == nil {
		t.Error("alignment 64 accepted")
	}
}

func f16ToFloat(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	e, m := int(h>>10&0x1f), float64(h&0x3ff)
	switch e {
	case 0:
		return sign * m * math.Ldexp(1, -24)
	case 0x1f:
		if m != 0 {
			return math.NaN()
		}
		return sign * math.Inf(1)
	}
	return sign * (1 + m/1024) * math.Ldexp(1, e-15)
}

func TestF16(t *testing.T) {
	for _, c := range []struct {
		f float32
		h uint16
	}{
		{0, 0}, {1, 0x3c00}, {-2, 0xc000}, {65504, 0x7bff}, {1e6, 0x7c00},
		{float32(math.Ldexp(1, -24)), 0x0001}, {float32(math.Ldexp(1, -26)), 0},
		{float32(math.Ldexp(1, -14)), 0x0400}, {1 + 1.0/2048, 0x3c00}, {1 + 3.0/2048, 0x3c02},
	} {
		if got := F16(c.f); got != c.h {
			t.Errorf("F16(%g) = %#04x, want %#04x", c.f, got, c.h)
		}
	}
	// Every f16 value round-trips, and conversion is within half an ulp.
	for h := range uint32(0x7c00) {
		f := float32(f16ToFloat(uint16(h)))
		if got := F16(f); got != uint16(h) {
			t.Fatalf("F16(%g) = %#04x, want %#04x", f, got, h)
		}
	}
	for _, f := range []float32{0.02, -0.0137, 3.14159, 1e-5, 6e-8} {
		got := f16ToFloat(F16(f))
		ulp := math.Max(math.Ldexp(1, -24), math.Ldexp(1, int(math.Floor(math.Log2(math.Abs(float64(f)))))-10))
		if math.Abs(got-float64(f)) > ulp/2 {
			t.Errorf("F16(%g) decodes to %g", f, got)
		}
	}
}

func TestVocab(t *testing.T) {
	tokens, types := Vocab(32000)
	if len(tokens) != 32000 || len(types) != 32000 {
		t.Fatalf("len %d %d", len(tokens), len(types))
	}
	seen := map[string]bool{}
	for i, tok := range tokens {
		if seen[tok] {
			t.Fatalf("duplicate token %q", tok)
		}
		seen[tok] = true
		if i < 256 && utf8.RuneCountInString(tok) != 1 {
			t.Errorf("byte token %d = %q", i, tok)
		}
		if i >= firstFiller && (!strings.HasPrefix(tok, "Ġ") || utf8.RuneCountInString(tok) < 2) {
			t.Errorf("filler %d = %q", i, tok)
		}
		wantType := int32(tokenNormal)
		if i >= BOSID && i < firstFiller {
			wantType = tokenControl
		}
		if types[i] != wantType {
			t.Errorf("token %d type %d", i, types[i])
		}
	}
	if tokens['A'] != "A" || tokens[' '] != "Ġ" || tokens['\n'] != "Ċ" {
		t.Errorf("byte symbols: %q %q %q", tokens['A'], tokens[' '], tokens['\n'])
	}
	if tokens[ImStartID] != "<|im_start|>" || tokens[ImEndID] != "<|im_end|>" || tokens[firstFiller] != "Ġa" || tokens[31999] != "Ġatxt" {
		t.Errorf("tokens: %q %q %q %q", tokens[ImStartID], tokens[ImEndID], tokens[firstFiller], tokens[31999])
	}
}

func smallConfig() LlamaConfig {
	c := DefaultLlamaConfig()
	c.Layers, c.Dim, c.Heads, c.KVHeads, c.FFN, c.Vocab = 2, 64, 4, 2, 96, 300
	return c
}

func TestWriteLlama(t *testing.T) {
	cfg := smallConfig()
	var buf bytes.Buffer
	if err := WriteLlama(&buf, cfg, 42); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	p, err := parse(b)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{
		"general.architecture":          "llama",
		"llama.block_count":             uint32(2),
		"llama.embedding_length":        uint32(64),
		"llama.attention.head_count_kv": uint32(2),
		"llama.rope.dimension_count":    uint32(16),
		"tokenizer.ggml.model":          "gpt2",
		"tokenizer.ggml.pre":            "default",
		"tokenizer.ggml.merges":         []string{},
		"tokenizer.ggml.bos_token_id":   uint32(BOSID),
		"tokenizer.ggml.eos_token_id":   uint32(EOSID),
		"tokenizer.chat_template":       ChatTemplate,
	} {
		if !reflect.DeepEqual(p.kv[k], want) {
			t.Errorf("%s = %#v, want %#v", k, p.kv[k], want)
		}
	}
	if n := len(p.kv["tokenizer.ggml.tokens"].([]string)); n != 300 {
		t.Errorf("%d tokens", n)
	}
	if len(p.tensors) != 3+9*cfg.Layers {
		t.Fatalf("%d tensors", len(p.tensors))
	}
	shapes := map[string][]uint64{
		"token_embd.weight":        {64, 300},
		"output.weight":            {64, 300},
		"output_norm.weight":       {64},
		"blk.1.attn_k.weight":      {64, 32},
		"blk.1.attn_output.weight": {64, 64},
		"blk.0.ffn_down.weight":    {96, 64},
		"blk.0.ffn_up.weight":      {64, 96},
	}
	var end uint64
	byName := map[string]tensorInfo{}
	for _, ti := range p.tensors {
		byName[ti.name] = ti
		if ti.offset%Alignment != 0 {
			t.Errorf("%s offset %d", ti.name, ti.offset)
		}
		if want, ok := shapes[ti.name]; ok && !reflect.DeepEqual(ti.shape, want) {
			t.Errorf("%s shape %v, want %v", ti.name, ti.shape, want)
		}
		wantType := TensorF16
		if len(ti.shape) == 1 {
			wantType = TensorF32
		}
		if ti.typ != wantType {
			t.Errorf("%s type %d", ti.name, ti.typ)
		}
		end = ti.offset + (Tensor{Shape: ti.shape, Type: ti.typ}).Size()
	}
	if want := p.dataStart + int64(align(end)); int64(len(b)) != want {
		t.Errorf("file size %d, want %d", len(b), want)
	}

	// The no-EOS construction: embedding dim 0 constant, residual writers
	// zero on row 0, suppressed output rows for bytes and control tokens.
	row := func(name string, r int) []float64 {
		ti := byName[name]
		n := ti.shape[0]
		start := p.dataStart + int64(ti.offset) + int64(r)*int64(n)*2
		out := make([]float64, n)
		for i := range out {
			out[i] = f16ToFloat(binary.LittleEndian.Uint16(b[start+int64(2*i):]))
		}
		return out
	}
	if v := row("token_embd.weight", 123)[0]; v != embedConst {
		t.Errorf("embedding dim 0 = %g", v)
	}
	for _, r := range row("blk.1.ffn_down.weight", 0) {
		if r != 0 {
			t.Fatal("ffn_down row 0 not zero")
		}
	}
	if eos := row("output.weight", EOSID); eos[0] != suppressed || eos[1] != 0 {
		t.Errorf("EOS output row starts %v", eos[:2])
	}
	if f := row("output.weight", firstFiller); f[0] != 0 || f[1] == 0 {
		t.Errorf("filler output row starts %v", f[:2])
	}
	// Anti-repeat: a filler's output row points away from its own embedding.
	for _, tok := range []int{firstFiller, 299} {
		var dot float64
		out, emb := row("output.weight", tok), row("token_embd.weight", tok)
		for i := 1; i < len(out); i++ {
			dot += out[i] * emb[i]
		}
		if want := -antiRepeat * embedStd * embedStd * float64(len(out)-1); dot > want/2 {
			t.Errorf("token %d: output·embedding = %g, want about %g", tok, dot, want)
		}
	}
	var sum, sq float64
	vals := row("blk.0.attn_q.weight", 5)
	for _, v := range vals {
		sum += v
		sq += v * v
	}
	if std := math.Sqrt(sq / float64(len(vals))); std < 0.01 || std > 0.03 {
		t.Errorf("attn_q std %g", std)
	}
}

func TestWriteLlamaDeterministic(t *testing.T) {
	cfg := smallConfig()
	var a, b, c bytes.Buffer
	for _, x := range []struct {
		buf  *bytes.Buffer
		seed int64
	}{{&a, 1}, {&b, 1}, {&c, 2}} {
		if err := WriteLlama(x.buf, cfg, x.seed); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("same seed, different files")
	}
	if bytes.Equal(a.Bytes(), c.Bytes()) {
		t.Error("different seeds, same file")
	}
	// Tensors regenerate their data on every write.
	ts := LlamaTensors(cfg, 1)
	var x, y bytes.Buffer
	if err := Write(&x, LlamaMetadata(cfg), ts); err != nil {
		t.Fatal(err)
	}
	if err := Write(&y, LlamaMetadata(cfg), ts); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(x.Bytes(), a.Bytes()) || !bytes.Equal(y.Bytes(), a.Bytes()) {
		t.Error("rewriting the same tensors gave different bytes")
	}
}

func TestValidate(t *testing.T) {
	if err := DefaultLlamaConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, mod := range []func(*LlamaConfig){
		func(c *LlamaConfig) { c.Heads = 7 },
		func(c *LlamaConfig) { c.KVHeads = 3 },
		func(c *LlamaConfig) { c.Vocab = 100 },
		func(c *LlamaConfig) { c.Layers = 0 },
		func(c *LlamaConfig) { c.InitStd = 0 },
	} {
		c := DefaultLlamaConfig()
		mod(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("invalid config accepted: %+v", c)
		}
		if err := WriteLlama(io.Discard, c, 1); err == nil {
			t.Errorf("WriteLlama accepted %+v", c)
		}
	}
}

func TestChatPromptTokens(t *testing.T) {
	// Values observed with Ollama v0.6.5 (see ollama_e2e_test.go).
	for _, c := range []struct {
		msgs []ChatMessage
		want int
	}{
		{[]ChatMessage{{"user", "Hi"}}, 2 + OllamaChatOverhead},
		{[]ChatMessage{{"user", ""}}, OllamaChatOverhead},
		{[]ChatMessage{{"system", "sys"}, {"user", "Hi"}}, 35},
		{[]ChatMessage{{"user", "Hi"}, {"assistant", "Yo"}, {"user", "Hi"}}, 47},
	} {
		if got := ChatPromptTokens(c.msgs); got != c.want {
			t.Errorf("%v: %d, want %d", c.msgs, got, c.want)
		}
	}
}

// A size out of range is refused with its name and value, including one
// too large for the uint32 the file stores it in.
func TestValidateNamesTheSize(t *testing.T) {
	for _, tc := range []struct {
		mod  func(*LlamaConfig)
		want string
	}{
		{func(c *LlamaConfig) { c.FFN = 0 }, "ffn 0"},
		{func(c *LlamaConfig) { c.KVHeads = -2 }, "kv heads -2"},
		{func(c *LlamaConfig) { c.Context = 1<<32 + 1 }, "context 4294967297"},
	} {
		c := DefaultLlamaConfig()
		tc.mod(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one naming %q", c, err, tc.want)
		}
	}
}

// A vocabulary too large for the filler words is refused with the largest
// one that fits, so the caller knows what to ask for instead.
func TestValidateNamesTheLargestVocab(t *testing.T) {
	c := DefaultLlamaConfig()
	c.Vocab = maxVocab + 1
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), fmt.Sprint(maxVocab)) {
		t.Errorf("vocab %d: error %v, want one naming the largest, %d", c.Vocab, err, maxVocab)
	}
	c.Vocab = maxVocab
	if err := c.Validate(); err != nil {
		t.Errorf("vocab %d: %v", c.Vocab, err)
	}
	if tokens, _ := Vocab(maxVocab); len(tokens) != maxVocab || tokens[maxVocab-1] != "Ġzzzz" {
		t.Errorf("Vocab(%d): %d tokens, last %q", maxVocab, len(tokens), tokens[len(tokens)-1])
	}
}

// An infinite init std, norm eps or rope theta is refused like a zero one:
// it would write Inf and NaN weights or metadata no engine can run.
func TestValidateRefusesInfinities(t *testing.T) {
	inf := float32(math.Inf(1))
	for name, mod := range map[string]func(*LlamaConfig){
		"init std":   func(c *LlamaConfig) { c.InitStd = inf },
		"norm eps":   func(c *LlamaConfig) { c.NormEps = inf },
		"rope theta": func(c *LlamaConfig) { c.RopeTheta = inf },
	} {
		c := DefaultLlamaConfig()
		mod(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s +Inf accepted", name)
		}
	}
}
