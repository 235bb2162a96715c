package replay

import (
	"math"
	"strconv"

	"github.com/servesim/servesim/traces"
)

// PromptBuilder writes prompt text that costs a trace row's PromptTokens on
// the target engine, under the engine's affine TextModel.
//
// The text is space-separated four-letter English words (" time", " word":
// five bytes, one token in common BPE vocabularies), padded with 'x' to the
// exact byte count, so token count stays close to linear in bytes. Every
// prompt is unique from its first bytes (a "[salt #index]" tag; a prompt
// too short for it opens with "index#salt" instead), so engine
// prefix caches cannot make TTFT look faster than the trace says, except
// where the row has PrefixHashes: then the prompt is cut into blocks of
// BlockSize tokens, block i's text is a pure function of (hash i, salt),
// and rows sharing a hash prefix share that text exactly; tokens beyond the
// hashed blocks get the unique tag and their own text. The template's
// tokens before the text (TextModel.Prefix; all of Overhead when that is
// unknown) count toward the first block, so that rows sharing n blocks
// share n × BlockSize prompt tokens on the engine, as the trace says.
//
// A PromptBuilder is not safe for concurrent use.
type PromptBuilder struct {
	m         TextModel
	blockSize int
	salt      uint64
}

// RunTagBytes is how many leading bytes the prompts of one run share when
// their rows have no prefix hashes: the "[r<salt> #" that opens each unique
// tag (a 24-bit salt has 5 base-36 digits but in 1 run in 10); a prompt
// too short for its whole tag opens with its index instead. An engine
// whose idle slots keep their last prompt (llama.cpp, Ollama) keeps these
// tokens when a slot passes from one request of the run to the next.
const RunTagBytes = 9

// NewPromptBuilder returns a builder for text model m, prefix-hash block
// size blockSize (0: ignore PrefixHashes) and salt (mixed into all text).
func NewPromptBuilder(m TextModel, blockSize int, salt uint64) *PromptBuilder {
	return &PromptBuilder{m: m, blockSize: blockSize, salt: salt}
}

// Bytes returns how many text bytes cost tokens tokens under m, overhead
// included: round((tokens − Overhead) / TokensPerByte), at least 1.
func (m TextModel) Bytes(tokens int) int {
	n := int(math.Round((float64(tokens) - m.Overhead) / m.TokensPerByte))
	return max(n, 1)
}

// tooShort reports whether tokens is below what the overhead and one byte
// of text cost: Bytes then gives that byte, and the prompt costs more
// tokens than asked.
func (m TextModel) tooShort(tokens int) bool {
	return math.Round((float64(tokens)-m.Overhead)/m.TokensPerByte) < 1
}

// Tokens is the model's token count for a text of n bytes.
func (m TextModel) Tokens(n int) float64 { return m.TokensPerByte*float64(n) + m.Overhead }

// Build appends the prompt of r, the idx-th request of the run, to dst.
func (b *PromptBuilder) Build(dst []byte, idx int, r *traces.Request) []byte {
	total := b.m.Bytes(int(r.PromptTokens))
	done := 0
	before := b.m.Overhead // tokens ahead of the text; Prefix when known
	if b.m.Prefix > 0 {
		before = b.m.Prefix
	}
	if b.blockSize > 0 && len(r.PrefixHashes) > 0 {
		for i, h := range r.PrefixHashes {
			if i*b.blockSize >= int(r.PromptTokens) {
				break
			}
			end := min((i+1)*b.blockSize, int(r.PromptTokens))
			cum := min(max(0, int(math.Round((float64(end)-before)/b.m.TokensPerByte))), total)
			if cum > done {
				dst = appendWords(dst, cum-done, h^(b.salt*0x9e3779b97f4a7c15))
				done = cum
			}
		}
	}
	if rest := total - done; rest > 0 {
		start := len(dst)
		dst = append(dst, "[r"...)
		dst = strconv.AppendUint(dst, b.salt&0xffffff, 36)
		dst = append(dst, " #"...)
		dst = strconv.AppendInt(dst, int64(idx), 10)
		dst = append(dst, ']')
		if tag := len(dst) - start; tag > rest {
			// Too short for the tag, whose cut would leave the run's
			// shared opening alone: the index first (base 36, ended by
			// '#', so no index's opening is another's), then the salt.
			dst = strconv.AppendInt(dst[:start], int64(idx), 36)
			dst = append(dst, '#')
			dst = strconv.AppendUint(dst, b.salt&0xffffff, 36)
			if short := len(dst) - start; short >= rest {
				dst = dst[:start+rest]
			} else {
				dst = appendWords(dst, rest-short, uint64(idx)^b.salt^0x5bd1e995)
			}
		} else {
			dst = appendWords(dst, rest-tag, uint64(idx)^b.salt^0x5bd1e995)
		}
	}
	return dst
}

// appendWords appends exactly n bytes of words chosen by a generator seeded
// with seed.
func appendWords(dst []byte, n int, seed uint64) []byte {
	s := seed
	for n >= 5 {
		s += 0x9e3779b97f4a7c15
		z := s
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		// Eight words per random number.
		for k := 0; k < 8 && n >= 5; k++ {
			w := words[(z>>(8*k))&0xff]
			dst = append(dst, ' ', w[0], w[1], w[2], w[3])
			n -= 5
		}
	}
	for ; n > 0; n-- {
		dst = append(dst, 'x')
	}
	return dst
}

// words holds 256 common four-letter English words.
var words = func() [256]string {
	list := " time year over well also back work life only then long even need feel come give" +
		" take make look find want tell call keep seem turn show hear play move live hold" +
		" word home hand part high last much next same city team name line form game" +
		" book fact head face side kind room mind away idea body real door five four" +
		" half eyes able open easy hard late free full true sure near data city land" +
		" fire road rate tree base hope food town plan care love talk mean read rest" +
		" cold warm rain snow wind star moon ship farm king song film page test card" +
		" blue gold pink gray dark soft deep fast slow wide tall safe rich poor wild" +
		" wise bold calm cool fair fine glad huge kept knew lead left lost made" +
		" many miss most must note once paid past pick plus pull push rule sale seen" +
		" sell send sent shop sign sort step stop such sure task than that them they" +
		" this thus till told took tour unit upon used user very view vote wait walk" +
		" wall want week went were what when whom wife will wish with wood yard your" +
		" zero area army baby bank bill bird boat bone born boss cash cell chip club" +
		" coat code cost crew crop dark deal debt desk diet disk draw drop drug duty" +
		" earn east edge else exit fail fall fear feet fell felt file fill firm fish" +
		" flat flow fold foot fund gain gate gave gift girl goal gone grow hair hall"
	var w [256]string
	for i := range w {
		w[i] = list[i*5+1 : i*5+5]
	}
	return w
}()
