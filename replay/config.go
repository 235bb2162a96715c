package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/BurntSushi/toml"

	"github.com/servesim/servesim/internal/tomlkeys"
	"github.com/servesim/servesim/internal/urlport"
	"github.com/servesim/servesim/internal/urlshow"
	"github.com/servesim/servesim/traces"
)

// Endpoint selects the OpenAI-compatible API a request goes to.
type Endpoint string

const (
	Chat        Endpoint = "chat"        // POST {base}/chat/completions, one user message
	Completions Endpoint = "completions" // POST {base}/completions, a raw prompt
)

// Arrival selects how requests are paced.
type Arrival string

const (
	// Open sends each request at start + arrival × TimeScale on an absolute
	// clock, whatever the server does. With Concurrency > 0 at most that
	// many requests are in flight; a send that waits for a slot is late and
	// the wait shows as schedule lag, but does not flag the run.
	Open Arrival = "open"
	// Closed runs Concurrency clients; each sends its next request (in trace
	// order, ignoring arrival times) as soon as its previous one finishes.
	Closed Arrival = "closed"
)

// LagLimit is the schedule-lag p99 above which a run is flagged.
const LagLimit = time.Millisecond

// maxSchedule is the latest a row may be scheduled: 2^32 s, the latest
// time a trace holds (arrival × TimeScale past int64 wrapped negative).
const maxSchedule = float64(1<<32) * 1e9

// Bounds of the settings that size or time everything after them.
const (
	maxTimeScale     = 1 << 32 // a trace second then lasts maxSchedule
	minTokensPerByte = 0.01    // prompts are built whole, 1/TokensPerByte bytes a token
	maxOverhead      = 1e6     // tokens beyond the text, as Prefix: past any context window
)

// MaxRepeat is the most runs one recording (or verify, per candidate)
// takes: each run's output is checked before the first request, so a
// mistyped count would stall for hours, or fill memory, before any.
const MaxRepeat = 1000

// Config is everything a replay needs. Build it with DefaultConfig, change
// what differs, and call Validate (Run and Record call it too). The API key
// is not a field: it is read from the environment variable APIKeyEnv when a
// run starts, sent only in the Authorization header, and never stored,
// logged or written.
type Config struct {
	BaseURL     string        `json:"base_url" toml:"base_url"`             // e.g. http://127.0.0.1:8000/v1
	Model       string        `json:"model" toml:"model"`                   // the model name sent in each request
	APIKeyEnv   string        `json:"api_key_env" toml:"api_key_env"`       // env var holding the key; an empty value sends no Authorization header
	Endpoint    Endpoint      `json:"endpoint" toml:"endpoint"`             // chat or completions
	Timeout     time.Duration `json:"timeout" toml:"timeout"`               // per request, send to last byte
	Arrival     Arrival       `json:"arrival" toml:"arrival"`               // open or closed
	Concurrency int           `json:"concurrency" toml:"concurrency"`       // closed: clients (≥1); open: in-flight cap, 0 = none
	TimeScale   float64       `json:"time_scale" toml:"time_scale"`         // open loop: send at arrival × TimeScale (0.5 = twice the rate); at most 2^32
	Repeat      int           `json:"repeat" toml:"repeat"`                 // Record: how many runs
	Temperature float64       `json:"temperature" toml:"temperature"`       // always sent, 0 included
	IgnoreEOS   bool          `json:"ignore_eos" toml:"ignore_eos"`         // send "ignore_eos": true (vLLM, SGLang, llama.cpp's server) so outputs reach max_tokens
	KeepText    bool          `json:"keep_text" toml:"keep_text"`           // keep generated text in Request.OutputText: its first 4 MiB, a longer one marked where cut (TextCut)
	SaveRaw     string        `json:"save_raw" toml:"save_raw"`             // directory for raw response bodies (the first 64 MiB of each); "" = off
	Trace       string        `json:"trace" toml:"trace"`                   // Record: input trace path
	Out         string        `json:"out" toml:"out"`                       // Record: output trace path (any traces extension)
	BlockSize   int           `json:"block_size" toml:"block_size"`         // tokens per prefix-hash block; 0 = the trace's Meta.BlockSize
	Text        TextModel     `json:"text_model" toml:"text_model"`         // zero = calibrate against the server
	Salt        uint64        `json:"prompt_salt" toml:"prompt_salt"`       // mixes into prompt text; 0 = random per run (no cache hits across runs)
	FlushEvery  time.Duration `json:"flush_every" toml:"flush_every"`       // how often completed rows are made durable (≤ 1s)
	MaxIdle     int           `json:"max_idle_conns" toml:"max_idle_conns"` // idle keep-alive connections kept; 0 = automatic
	SLO         traces.SLO    `json:"slo" toml:"slo"`                       // per-request limits for goodput; zero = none
	MaxTokens   int           `json:"max_tokens" toml:"max_tokens"`         // caps the max_tokens sent (a plan's max_new_tokens); 0 = no cap
	// ContinuousUsage sends stream_options.continuous_usage_stats (vLLM,
	// SGLang): usage on every chunk, so a chunk of several tokens gets the
	// server's count instead of a share by text length. Off by default:
	// OpenAI's own API may refuse the field.
	ContinuousUsage bool `json:"continuous_usage" toml:"continuous_usage"`
	// SessionWait (open loop) holds a row with a session_id until the
	// previous row of its session, in trace order, has ended (finished,
	// failed or timed out): no user sends turn k+1 before turn k's reply,
	// however much slower the engine is than the trace's producer. A row
	// the source trace marks failed is never sent, so no turn waits for it.
	SessionWait bool `json:"session_wait" toml:"session_wait"`
	// ToolVersion is the servesim version, for the output's metadata; not
	// a setting.
	ToolVersion string `json:"-" toml:"-"`
}

// TextModel is the affine text→tokens model of the target engine for the
// prompt text PromptBuilder writes: tokens = TokensPerByte × bytes +
// Overhead, where Overhead is what the request costs beyond its text (the
// chat template). For servesim's test engine every ASCII byte is one token
// and a chat request costs 20 more: {1, 20, 7}.
type TextModel struct {
	TokensPerByte float64 `json:"tokens_per_byte" toml:"tokens_per_byte"`
	Overhead      float64 `json:"overhead" toml:"overhead"`
	// Prefix is the part of Overhead before the text (BOS and the chat
	// template's header, 7 on the test engine): every prompt starts with
	// it, so an engine's prompt cache shares it between any two requests.
	// 0: unknown. Calibration's slot model uses it, and PromptBuilder to
	// place shared prefix blocks at the trace's token positions.
	Prefix float64 `json:"prefix" toml:"prefix"`
}

// IsZero reports whether m is unset (calibrate).
func (m TextModel) IsZero() bool { return m.TokensPerByte == 0 && m.Overhead == 0 }

// problem says what makes a set model unusable, or returns "".
func (m TextModel) problem() string {
	switch {
	case m.IsZero():
	case !(m.TokensPerByte >= minTokensPerByte && m.TokensPerByte < 100):
		return fmt.Sprintf("TokensPerByte must be in [%v, 100) when set (prompts are %v bytes a token at most), got %v",
			minTokensPerByte, 1/minTokensPerByte, m.TokensPerByte)
	case !(math.Abs(m.Overhead) < maxOverhead):
		return fmt.Sprintf("Overhead must be a number within ±%g, got %v", maxOverhead, m.Overhead)
	}
	return ""
}

// DefaultConfig returns the defaults: chat endpoint, key from
// OPENAI_API_KEY, open loop at scale 1 with no concurrency cap, 10-minute
// request timeout, temperature 0, one run, flushing every 500 ms.
func DefaultConfig() Config {
	return Config{
		APIKeyEnv:  "OPENAI_API_KEY",
		Endpoint:   Chat,
		Timeout:    10 * time.Minute,
		Arrival:    Open,
		TimeScale:  1,
		Repeat:     1,
		FlushEvery: 500 * time.Millisecond,
	}
}

// FieldError is a Config field that failed validation (Field: its Go
// name, e.g. "Concurrency").
type FieldError = traces.FieldError

func fieldErr(field, msg string) error {
	return &FieldError{Struct: "replay: Config", Field: field, Msg: msg}
}

// notNameChar reports whether r cannot be in a shell variable's name.
func notNameChar(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_')
}

// keyLike reports whether name, made of letters, digits and _, reads as a
// key rather than a variable's name: it starts with a digit (no shell sets
// such a name), or holds 20 or more bytes with lower-case letters and
// digits mixed, as generated keys do and names (OPENAI_API_KEY) do not.
func keyLike(name string) bool {
	if name[0] >= '0' && name[0] <= '9' {
		return true
	}
	return len(name) >= 20 && strings.ContainsFunc(name, unicode.IsLower) && strings.ContainsFunc(name, unicode.IsDigit)
}

// Validate checks every field and returns all problems joined, each a
// *FieldError naming its field. Record-only fields (Trace, Out) are
// checked by Record.
func (c *Config) Validate() error {
	var errs []error
	bad := func(field, format string, a ...any) {
		errs = append(errs, fieldErr(field, fmt.Sprintf(format, a...)))
	}
	if c.BaseURL == "" {
		bad("BaseURL", "required (e.g. http://127.0.0.1:8000/v1)")
	} else if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// Errors reach logs: a password or query in the URL is not shown.
		bad("BaseURL", "%q is not an http(s) URL with a host", urlshow.String(c.BaseURL))
	} else if !urlport.InRange(u) {
		bad("BaseURL", "%q: port %s out of range: want 1 to 65535", urlshow.String(c.BaseURL), u.Port())
	} else if strings.Contains(u.EscapedPath(), "@") {
		// user:token@host with a '/' in the token: the host read is the
		// token's start, which a failed lookup would print. An
		// escaped '@' (%40) is a path character, as urlshow shows it.
		bad("BaseURL", "has an '@' in its path: credentials typed in the URL? (not shown; pass the key through APIKeyEnv)")
	}
	if c.Model == "" {
		bad("Model", "required")
	} else if strings.TrimSpace(c.Model) != c.Model {
		// No server lists such a name: every request would be refused.
		bad("Model", "%q starts or ends with whitespace (a pasted line break?): want the name the server lists", c.Model)
	}
	if c.APIKeyEnv == "" {
		bad("APIKeyEnv", "required: the name of the environment variable holding the API key")
	} else if strings.ContainsAny(c.APIKeyEnv, "= \t\n") {
		// A key with base64's '=' padding, or pasted as "Bearer sk-...",
		// is no name either: not shown, as it may be the key.
		bad("APIKeyEnv", "not an environment variable name (it holds '=' or whitespace): the key itself? (not shown)")
	} else if _, set := os.LookupEnv(c.APIKeyEnv); !set && strings.ContainsFunc(c.APIKeyEnv, notNameChar) {
		// An unset name that no shell would give is most likely the key
		// itself (--api-key-env sk-...): not shown, as every 401 would.
		bad("APIKeyEnv", "not an environment variable name (want letters, digits and _): the key itself? (not shown)")
	} else if !set && keyLike(c.APIKeyEnv) {
		// Keys of letters, digits and _ (hf_..., gsk_..., hex) are names
		// a shell would give, but not ones anyone would type.
		bad("APIKeyEnv", "unset, and not like an environment variable name (it starts with a digit, or is long with lower-case letters and digits mixed): the key itself? (not shown)")
	}
	if c.Endpoint != Chat && c.Endpoint != Completions {
		bad("Endpoint", "%q: want %q or %q", c.Endpoint, Chat, Completions)
	}
	if c.Timeout <= 0 {
		bad("Timeout", "must be positive (got %v)", c.Timeout)
	}
	switch c.Arrival {
	case Open:
		if c.Concurrency < 0 {
			bad("Concurrency", "must be ≥ 0 for open loop (0 = no cap), got %d", c.Concurrency)
		}
	case Closed:
		if c.Concurrency < 1 {
			bad("Concurrency", "must be ≥ 1 for closed loop, got %d", c.Concurrency)
		}
		if c.TimeScale != 1 && c.TimeScale > 0 {
			bad("TimeScale", "applies to the open loop only (closed-loop clients send back to back), got %v", c.TimeScale)
		}
		if c.SessionWait {
			bad("SessionWait", "applies to the open loop only (a closed-loop client already waits for its previous request)")
		}
	default:
		bad("Arrival", "%q: want %q or %q", c.Arrival, Open, Closed)
	}
	if !(c.TimeScale > 0 && c.TimeScale <= maxTimeScale) {
		bad("TimeScale", "must be a positive number up to 2^32 (a trace second then lasts 136 years), got %v", c.TimeScale)
	}
	if c.Repeat < 1 || c.Repeat > MaxRepeat {
		bad("Repeat", "must be in [1, %d], got %d", MaxRepeat, c.Repeat)
	}
	if c.Temperature < 0 || c.Temperature > 2 || math.IsNaN(c.Temperature) {
		bad("Temperature", "must be in [0, 2], got %v", c.Temperature)
	}
	if c.BlockSize < 0 || c.BlockSize > traces.MaxBlockSize {
		// The output trace records it: past the bound no reader accepts it.
		bad("BlockSize", "must be in [0, %d], got %d", traces.MaxBlockSize, c.BlockSize)
	}
	if msg := c.Text.problem(); msg != "" {
		bad("Text", "%s", msg)
	}
	// Prefix 0 is "unknown", whatever the overhead: a calibrated overhead
	// can come out below 0 (no BOS, a template that merges tokens).
	if p := c.Text.Prefix; !(p >= 0 && p < 1e6) || (!c.Text.IsZero() && p > 0 && p > c.Text.Overhead) {
		bad("Text", "Prefix must be in [0, Overhead], got %v (Overhead %v)", p, c.Text.Overhead)
	}
	if c.SLO.TTFT < 0 || c.SLO.TPOT < 0 || c.SLO.E2E < 0 {
		bad("SLO", "limits must be ≥ 0 (0 = not set), got %+v", c.SLO)
	}
	if c.FlushEvery <= 0 || c.FlushEvery > time.Second {
		bad("FlushEvery", "must be in (0, 1s], got %v", c.FlushEvery)
	}
	if c.MaxIdle < 0 {
		bad("MaxIdle", "must be ≥ 0, got %d", c.MaxIdle)
	}
	if c.MaxTokens < 0 {
		bad("MaxTokens", "must be ≥ 0 (0 = no cap), got %d", c.MaxTokens)
	}
	return errors.Join(errs...)
}

// LoadSettings overlays a JSON (.json) or TOML (.toml) settings file on cfg.
// Keys are the json/toml tags of Config (snake_case); durations are strings
// such as "30s"; unknown keys, and keys given twice, are errors. The file
// cannot hold the API key. Relative paths (trace, out, save_raw) are kept
// as written: they name files from the current directory, as flags do,
// not from the settings file's.
func LoadSettings(path string, cfg *Config) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	return parseSettings(data, path, cfg)
}

// parseSettings is LoadSettings on the contents of the file at path; cfg is
// left unchanged on error.
func parseSettings(data []byte, path string, cfg *Config) error {
	f := fileSettings{}
	f.from(cfg)
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		if err := decodeSettingsJSON(data, &f); err != nil {
			return fmt.Errorf("settings %s: %w", path, err)
		}
	case ".toml":
		md, err := toml.Decode(string(data), &f)
		at := func(k toml.Key) string {
			if n := tomlkeys.Line(string(data), md, k); n > 0 {
				return fmt.Sprintf(": line %d", n)
			}
			return ""
		}
		if err != nil {
			if k, terr := tomlTypeError(string(data), md); terr != nil {
				return fmt.Errorf("settings %s%s: %w", path, at(k), terr)
			}
			if k, derr := tomlDecoderError(md, err); derr != nil {
				return fmt.Errorf("settings %s%s: %w", path, at(k), derr)
			}
			return fmt.Errorf("settings %s: %w", path, err)
		}
		if und := md.Undecoded(); len(und) > 0 {
			return fmt.Errorf("settings %s%s: unknown key %q%s", path, at(und[0]), und[0].String(), keyHint(und[0].String()))
		}
		// Keys match fields regardless of case: two spellings of one key
		// are that key given twice, as in JSON.
		seen := map[string]string{}
		for _, k := range md.Keys() {
			key := k.String()
			if prev, dup := seen[strings.ToLower(key)]; dup {
				return fmt.Errorf("settings %s%s: %q: given twice (also as %q)", path, at(k), key, prev)
			}
			seen[strings.ToLower(key)] = key
		}
	default:
		return fmt.Errorf("settings %s: unknown extension (want .json or .toml)", path)
	}
	f.to(cfg)
	return nil
}

// decodeSettingsJSON decodes one JSON object into f a key at a time, so
// that an error names its key (a bad duration's would not) and a key given
// twice is refused, as TOML refuses it. Keys match fields regardless of
// case, as encoding/json matches them.
func decodeSettingsJSON(data []byte, f *fileSettings) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		if err == nil || err == io.EOF {
			return fmt.Errorf("want a JSON object, got %s", describeToken(t, err))
		}
		return syntaxError(data, err)
	}
	seen := map[string]string{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return syntaxError(data, err)
		}
		key, _ := t.(string) // the decoder only gives string keys inside an object
		at := dec.InputOffset()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("%q: %w", key, syntaxError(data, err))
		}
		// The key's line, as TOML's errors give it: text_model's own key's
		// where the error is about one of them.
		if inner, err := decodeSettingsKey(key, raw, seen, f); err != nil {
			if inner != "" {
				at = dec.InputOffset() - int64(len(raw)) + keyOffset(raw, inner)
			}
			return fmt.Errorf("line %d: %w", 1+bytes.Count(data[:at], []byte("\n")), err)
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return syntaxError(data, err)
	}
	// Anything after the object would be silently dropped.
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("unexpected data after the settings object, which ends at byte %d", end)
	}
	return nil
}

// decodeSettingsKey decodes one key of a JSON settings file, and its
// value raw, into f; seen holds the keys before it. inner is the key
// inside text_model that an error is about, if it is about one.
func decodeSettingsKey(key string, raw json.RawMessage, seen map[string]string, f *fileSettings) (inner string, err error) {
	if prev, dup := seen[strings.ToLower(key)]; dup {
		return "", fmt.Errorf("%q: given twice (also as %q)", key, prev)
	}
	seen[strings.ToLower(key)] = key
	if inner, prev, dup := duplicateKey(raw); dup { // text_model's keys
		return inner, fmt.Errorf("%q: given twice (also as %q)", key+"."+inner, prev)
	}
	one, err := json.Marshal(map[string]json.RawMessage{key: raw})
	if err != nil {
		return "", fmt.Errorf("%q: %w", key, err)
	}
	d := json.NewDecoder(bytes.NewReader(one))
	d.DisallowUnknownFields()
	if err := d.Decode(f); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case strings.HasPrefix(err.Error(), "json: unknown field"):
			// Worded as TOML's, and one inside text_model is named with
			// its parent, as TOML names it. The hint looks at the key
			// alone: the message holds "key" whatever the key is.
			name, inner := key, ""
			if k, uerr := strconv.Unquote(strings.TrimPrefix(err.Error(), "json: unknown field ")); uerr == nil && k != key {
				name, inner = key+"."+k, k
			}
			return inner, fmt.Errorf("unknown key %q%s", name, keyHint(name))
		case errors.As(err, &te):
			field := key
			if te.Field != "" { // the path to a key inside text_model
				field = te.Field
			}
			return "", fmt.Errorf("%q: want %s, got JSON %s", field, settingType(te.Type, "JSON"), te.Value)
		}
		return "", fmt.Errorf("%q: %w", key, err)
	}
	return "", nil
}

// keyOffset is where key ends in the JSON object raw (0 if it is not
// there).
func keyOffset(raw json.RawMessage, key string) int64 {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return 0
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return 0
		}
		if t == key {
			return dec.InputOffset()
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return 0
		}
	}
	return 0
}

// settingType says what a setting of type t must be, in words of the
// file's format ("JSON" or "TOML"): a Go type name (float64,
// replay.Endpoint) means nothing to whoever wrote the file, and a TOML
// file has tables, not objects.
func settingType(t reflect.Type, format string) string {
	switch t {
	case reflect.TypeFor[duration]():
		return `a duration such as "30s"`
	case reflect.TypeFor[salt]():
		return "an integer ≥ 0"
	case reflect.TypeFor[traces.SLO]():
		return `limits such as "ttft=2s,tpot=50ms,e2e=30s"`
	case reflect.TypeFor[Endpoint]():
		return fmt.Sprintf("%q or %q", Chat, Completions)
	case reflect.TypeFor[Arrival]():
		return fmt.Sprintf("%q or %q", Open, Closed)
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Struct:
		if format == "TOML" {
			return "a table"
		}
		return "an object"
	}
	return t.String()
}

// syntaxError gives a syntax error in the JSON file data its line and
// column, which the decoder's errors lack (their offsets count from the
// token or value being read, and a cut-off file is a bare EOF).
func syntaxError(data []byte, err error) error {
	var v any
	var se *json.SyntaxError
	if !errors.As(json.Unmarshal(data, &v), &se) {
		return err
	}
	at := data[:min(max(se.Offset-1, 0), int64(len(data)))] // before the offending byte
	line := 1 + bytes.Count(at, []byte("\n"))
	col := len(at) - bytes.LastIndexByte(at, '\n')
	return fmt.Errorf("line %d, column %d: %w", line, col, se)
}

// duplicateKey finds a key that a JSON object gives twice (regardless of
// case, as keys match fields), and the earlier spelling; raw that is not
// an object has none.
func duplicateKey(raw json.RawMessage) (key, prev string, dup bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", "", false
	}
	seen := map[string]string{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", "", false
		}
		k, _ := t.(string)
		if p, ok := seen[strings.ToLower(k)]; ok {
			return k, p, true
		}
		seen[strings.ToLower(k)] = k
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", "", false
		}
	}
	return "", "", false
}

func describeToken(t json.Token, err error) string {
	switch {
	case err == io.EOF:
		return "nothing"
	case t == nil:
		return "null"
	}
	return fmt.Sprintf("%v", t)
}

// keyHint tells an unknown key s that reads as a credential (api_key,
// token, secret, Authorization...) where the API key comes from instead.
func keyHint(s string) string {
	if !strings.Contains(s, "api_key_env") && credentialName(strings.ToLower(s)) {
		return " (the API key is read only from the environment variable named by api_key_env)"
	}
	return ""
}

// credentialName reports whether the lower-case key name s names a
// credential. "token" counts only as a whole word: tokens_per_byte and
// max_tokens are counts.
func credentialName(s string) bool {
	for _, w := range []string{"key", "secret", "password", "bearer", "auth"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	words := strings.FieldsFunc(s, func(r rune) bool { return r == '_' || notNameChar(r) })
	return slices.Contains(words, "token")
}

// duration reads "1m30s" from JSON or TOML.
type duration time.Duration

func (d *duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	*d = duration(v)
	return nil
}

// salt is Config.Salt in a file. TOML integers are signed, and the TOML
// decoder would turn a negative one into a large uint64.
type salt uint64

func (s *salt) UnmarshalTOML(v any) error {
	n, ok := v.(int64)
	if !ok || n < 0 {
		return fmt.Errorf("want %s, got TOML %s", settingType(reflect.TypeFor[salt](), "TOML"), describeTOML(v))
	}
	*s = salt(n)
	return nil
}

// fileSettings mirrors Config with text durations.
type fileSettings struct {
	BaseURL     string     `json:"base_url" toml:"base_url"`
	Model       string     `json:"model" toml:"model"`
	APIKeyEnv   string     `json:"api_key_env" toml:"api_key_env"`
	Endpoint    Endpoint   `json:"endpoint" toml:"endpoint"`
	Timeout     duration   `json:"timeout" toml:"timeout"`
	Arrival     Arrival    `json:"arrival" toml:"arrival"`
	Concurrency int        `json:"concurrency" toml:"concurrency"`
	TimeScale   float64    `json:"time_scale" toml:"time_scale"`
	Repeat      int        `json:"repeat" toml:"repeat"`
	Temperature float64    `json:"temperature" toml:"temperature"`
	IgnoreEOS   bool       `json:"ignore_eos" toml:"ignore_eos"`
	KeepText    bool       `json:"keep_text" toml:"keep_text"`
	SaveRaw     string     `json:"save_raw" toml:"save_raw"`
	Trace       string     `json:"trace" toml:"trace"`
	Out         string     `json:"out" toml:"out"`
	BlockSize   int        `json:"block_size" toml:"block_size"`
	Text        TextModel  `json:"text_model" toml:"text_model"`
	Salt        salt       `json:"prompt_salt" toml:"prompt_salt"`
	FlushEvery  duration   `json:"flush_every" toml:"flush_every"`
	MaxIdle     int        `json:"max_idle_conns" toml:"max_idle_conns"`
	SLO         traces.SLO `json:"slo" toml:"slo"`
	MaxTokens   int        `json:"max_tokens" toml:"max_tokens"`
	Continuous  bool       `json:"continuous_usage" toml:"continuous_usage"`
	SessionWait bool       `json:"session_wait" toml:"session_wait"`
}

func (f *fileSettings) from(c *Config) {
	*f = fileSettings{c.BaseURL, c.Model, c.APIKeyEnv, c.Endpoint, duration(c.Timeout), c.Arrival, c.Concurrency,
		c.TimeScale, c.Repeat, c.Temperature, c.IgnoreEOS, c.KeepText, c.SaveRaw, c.Trace, c.Out, c.BlockSize,
		c.Text, salt(c.Salt), duration(c.FlushEvery), c.MaxIdle, c.SLO, c.MaxTokens, c.ContinuousUsage, c.SessionWait}
}

func (f *fileSettings) to(c *Config) {
	c.BaseURL, c.Model, c.APIKeyEnv, c.Endpoint = f.BaseURL, f.Model, f.APIKeyEnv, f.Endpoint
	c.Timeout, c.Arrival, c.Concurrency, c.TimeScale = time.Duration(f.Timeout), f.Arrival, f.Concurrency, f.TimeScale
	c.Repeat, c.Temperature, c.IgnoreEOS, c.KeepText = f.Repeat, f.Temperature, f.IgnoreEOS, f.KeepText
	c.SaveRaw, c.Trace, c.Out, c.BlockSize, c.Text, c.Salt = f.SaveRaw, f.Trace, f.Out, f.BlockSize, f.Text, uint64(f.Salt)
	c.FlushEvery, c.MaxIdle, c.SLO, c.MaxTokens = time.Duration(f.FlushEvery), f.MaxIdle, f.SLO, f.MaxTokens
	c.ContinuousUsage, c.SessionWait = f.Continuous, f.SessionWait
}
