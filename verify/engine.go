package verify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"reflect"
	"sort"
	"strings"
	"sync"
	"text/template"
	"text/template/parse"
	"time"

	"github.com/servesim/servesim/internal/atomicfile"
	"github.com/servesim/servesim/internal/secret"
	"github.com/servesim/servesim/internal/textcut"
	"github.com/servesim/servesim/internal/urlshow"
)

// Knobs are the engine settings of one candidate, the fields an engine
// command template can use: {{.MaxNumSeqs}}, {{.MaxNumBatchedTokens}},
// {{.GPUMemoryUtilization}}, {{.MaxModelLen}}, {{.BlockSize}}, {{.Port}}…
type Knobs struct {
	Rank                 int64   `json:"rank"`
	Label                string  `json:"label"`
	Strategy             string  `json:"strategy"`
	MaxNumSeqs           int     `json:"max_num_seqs"`
	MaxNumBatchedTokens  int     `json:"max_num_batched_tokens"`
	ChunkedPrefill       bool    `json:"chunked_prefill"`
	PrefixCaching        bool    `json:"prefix_caching"`
	BatchSize            int     `json:"batch_size"`
	MaxTokenBudget       int     `json:"max_token_budget"`
	MaxWaitMS            float64 `json:"max_wait_ms"`
	GPUMemoryUtilization float64 `json:"gpu_memory_utilization"`
	MaxModelLen          int     `json:"max_model_len"`
	BlockSize            int     `json:"block_size"`
	TensorParallel       int     `json:"tensor_parallel"`
	Device               string  `json:"device"`
	MaxNewTokens         int     `json:"max_new_tokens"`
	Host                 string  `json:"host"` // from the base URL
	Port                 string  `json:"port"` // from the base URL
}

// EngineSpec says how to (re)start the engine for each candidate.
type EngineSpec struct {
	// Start is a text/template over Knobs, run with `sh -c` in its own
	// process group. It may run the engine in the foreground (verify
	// stops it by signalling the group) or launch it and exit 0 (then
	// Stop is needed to end it). A non-zero exit before the engine is
	// healthy is a failed start.
	Start string
	// Stop, when set, is run (same template fields) to stop the engine;
	// the start command's process group is signalled afterwards anyway.
	Stop string
	// HealthURL is polled with GET until it answers 200.
	HealthURL string
	// HealthKeyEnv, when set, names the environment variable whose value
	// (when not empty) the polls send as a bearer token: an engine started
	// with an API key answers its /models 401 without one.
	HealthKeyEnv string
	// KeyEnv names the environment variable holding the API key: its value
	// is masked in the engine log's tail that errors quote and, once the
	// engine is stopped, in the engine log (an engine may print its
	// arguments, a key among them).
	KeyEnv string
	// BaseURL is the URL the runs are sent to (Run sets it from the
	// replay's): its user, password and query are masked as the key is,
	// since the engine may be started with them whatever the health URL.
	BaseURL string
	// HealthTimeout bounds the wait for health; 0 means 60 s.
	HealthTimeout time.Duration
	// StopTimeout bounds the stop command and the wait for the group
	// and the health URL to go away; 0 means 20 s.
	StopTimeout time.Duration
	// Dir is the working directory of both commands ("" = current).
	Dir string
}

// healthKey is the key the health polls send; "" sends none.
func (s EngineSpec) healthKey() string {
	if s.HealthKeyEnv == "" {
		return ""
	}
	return os.Getenv(s.HealthKeyEnv)
}

// ParseTemplate checks an engine command template against Knobs: it runs
// it on the zero Knobs and on probeKnobs, and checks the fields and the
// templates it names in every branch.
func ParseTemplate(name, text string) (*template.Template, error) {
	t, err := template.New(name).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, fmt.Errorf("verify: %s template: %w", name, err)
	}
	if err := t.Execute(io.Discard, Knobs{}); err != nil {
		return nil, fmt.Errorf("verify: %s template: %w", name, err)
	}
	// Execute only evaluates the branches the zero Knobs take: a field in
	// {{if .ChunkedPrefill}} would otherwise fail only once candidates run.
	for _, tt := range t.Templates() {
		if tt.Tree == nil {
			continue
		}
		if err := checkFields(tt.Tree, tt.Root, true); err != nil {
			return nil, fmt.Errorf("verify: %s template: %w", name, err)
		}
		if err := checkCalls(t, tt.Tree, tt.Root); err != nil {
			return nil, fmt.Errorf("verify: %s template: %w", name, err)
		}
	}
	// A call that fails whatever the knobs ({{len .MaxNumSeqs}}) in a
	// branch the zero Knobs skip fails once a candidate takes it: run the
	// branches that candidates of each strategy take.
	for _, k := range probeKnobs {
		if err := t.Execute(io.Discard, k); err != nil {
			return nil, fmt.Errorf("verify: %s template: with the knobs of a %s candidate (chunked prefill %v, prefix caching %v): %w",
				name, k.Strategy, k.ChunkedPrefill, k.PrefixCaching, err)
		}
	}
	return t, nil
}

// probeKnobs stand for the candidates of each strategy as KnobsOf makes
// them, with chunked prefill and prefix caching each on and off.
var probeKnobs = func() []Knobs {
	base := Knobs{Rank: 1, GPUMemoryUtilization: 0.9, MaxModelLen: 32768, BlockSize: 16, TensorParallel: 1,
		Device: "H100-SXM-80GB", MaxNewTokens: 1024, Host: "127.0.0.1", Port: "8000"}
	var out []Knobs
	for _, s := range []struct {
		strategy string
		set      func(k *Knobs)
	}{
		{"serial", func(*Knobs) {}},
		{"fixed", func(k *Knobs) { k.BatchSize, k.MaxWaitMS = 8, 50 }},
		{"token_budget", func(k *Knobs) { k.MaxTokenBudget, k.MaxWaitMS, k.TensorParallel = 16384, 50, 2 }},
		{"continuous", func(k *Knobs) { k.MaxNumSeqs, k.MaxNumBatchedTokens, k.TensorParallel = 256, 8192, 2 }},
	} {
		for _, chunked := range []bool{false, true} {
			for _, prefix := range []bool{false, true} {
				k := base
				k.Strategy, k.ChunkedPrefill, k.PrefixCaching = s.strategy, chunked, prefix
				s.set(&k)
				k.Label = fmt.Sprintf("%s rank=%d chunked_prefill=%v prefix_caching=%v", s.strategy, k.Rank, chunked, prefix)
				out = append(out, k)
			}
		}
	}
	return out
}()

// checkCalls reports a {{template}} call, in any branch of n, of a
// template that t does not define.
func checkCalls(t *template.Template, tree *parse.Tree, n parse.Node) error {
	var err error
	var walk func(n parse.Node)
	walk = func(n parse.Node) {
		switch n := n.(type) {
		case *parse.ListNode:
			if n != nil {
				for _, c := range n.Nodes {
					walk(c)
				}
			}
		case *parse.TemplateNode:
			if t.Lookup(n.Name) == nil && err == nil {
				loc, _ := tree.ErrorContext(n)
				err = fmt.Errorf("%s: %s: template %q is not defined", loc, n, n.Name)
			}
		case *parse.IfNode:
			walk(n.List)
			walk(n.ElseList)
		case *parse.WithNode:
			walk(n.List)
			walk(n.ElseList)
		case *parse.RangeNode:
			walk(n.List)
			walk(n.ElseList)
		}
	}
	walk(n)
	return err
}

// knobFields are the field names of Knobs.
var knobFields = func() map[string]bool {
	m := map[string]bool{}
	t := reflect.TypeFor[Knobs]()
	for i := 0; i < t.NumField(); i++ {
		m[t.Field(i).Name] = true
	}
	return m
}()

// checkFields reports a field of n that Knobs lacks. dotKnobs says whether
// dot is the Knobs there; inside with and range it is one of their values,
// which have no fields (defined templates are taken to get the Knobs).
func checkFields(tree *parse.Tree, n parse.Node, dotKnobs bool) error {
	bad := func(n parse.Node, field string) error {
		loc, _ := tree.ErrorContext(n)
		if knobFields[field] {
			return fmt.Errorf("%s: %s: dot is the value of with or range here, which has no fields (use $.%s for the knob)", loc, n, field)
		}
		return fmt.Errorf("%s: %s: unknown field %s (verify.Knobs has %s)", loc, n, field, strings.Join(sortedKeys(knobFields), ", "))
	}
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return nil
		}
		for _, c := range n.Nodes {
			if err := checkFields(tree, c, dotKnobs); err != nil {
				return err
			}
		}
	case *parse.ActionNode:
		return checkFields(tree, n.Pipe, dotKnobs)
	case *parse.TemplateNode:
		return checkFields(tree, n.Pipe, dotKnobs)
	case *parse.PipeNode:
		if n == nil {
			return nil
		}
		for _, c := range n.Cmds {
			if err := checkFields(tree, c, dotKnobs); err != nil {
				return err
			}
		}
	case *parse.CommandNode:
		for _, a := range n.Args {
			if err := checkFields(tree, a, dotKnobs); err != nil {
				return err
			}
		}
	case *parse.ChainNode:
		return checkFields(tree, n.Node, dotKnobs)
	case *parse.FieldNode:
		if !dotKnobs || !knobFields[n.Ident[0]] {
			return bad(n, n.Ident[0])
		}
	case *parse.VariableNode:
		if len(n.Ident) > 1 && n.Ident[0] == "$" && !knobFields[n.Ident[1]] {
			return bad(n, n.Ident[1])
		}
	case *parse.IfNode:
		return checkBranch(tree, &n.BranchNode, dotKnobs, dotKnobs)
	case *parse.WithNode:
		return checkBranch(tree, &n.BranchNode, dotKnobs, false)
	case *parse.RangeNode:
		return checkBranch(tree, &n.BranchNode, dotKnobs, false)
	}
	return nil
}

// checkBranch checks an if, with or range: its pipeline and else part
// with dot unchanged, its body with dot the Knobs when bodyKnobs.
func checkBranch(tree *parse.Tree, b *parse.BranchNode, dotKnobs, bodyKnobs bool) error {
	if err := checkFields(tree, b.Pipe, dotKnobs); err != nil {
		return err
	}
	if err := checkFields(tree, b.List, bodyKnobs); err != nil {
		return err
	}
	return checkFields(tree, b.ElseList, dotKnobs)
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Render executes an engine command template for k.
func Render(name, text string, k Knobs) (string, error) {
	t, err := ParseTemplate(name, text)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, k); err != nil {
		return "", fmt.Errorf("verify: %s template: %w", name, err)
	}
	return b.String(), nil
}

// Start failure kinds (CandidateResult.Status).
const (
	StatusOK          = "ok"
	StatusStartFailed = "engine_start_failed" // the command exited non-zero, or could not run
	StatusHealth      = "health_timeout"      // the engine never answered its health URL
	StatusDied        = "engine_died"         // the engine went away during the replay
	StatusReplay      = "replay_failed"       // the replay itself failed (configuration, write error, no run, no request succeeded)
	StatusSim         = "sim_failed"          // the candidate's plan could not be simulated
	StatusPlan        = "plan_invalid"        // the candidate's plan does not parse or resolve
	StatusCanceled    = "canceled"            // interrupted
)

// EngineError is a failed engine start: Status is StatusStartFailed or
// StatusHealth.
type EngineError struct {
	Status string
	Msg    string
}

func (e *EngineError) Error() string { return e.Status + ": " + e.Msg }

// Engine is a started engine command.
type Engine struct {
	spec    EngineSpec
	health  string // spec.HealthURL as it may be shown: password masked, no query
	knobs   Knobs
	cmd     *exec.Cmd
	log     *os.File
	logPath string
	done    chan struct{}
	mu      sync.Mutex
	exitErr error
	exited  bool
	stopped bool
}

var healthClient = &http.Client{Timeout: 2 * time.Second}

// Healthy reports whether url answers GET with 200, sending apiKey as a
// bearer token when it is not empty.
func Healthy(ctx context.Context, url, apiKey string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := healthClient.Do(req)
	if err != nil {
		return false
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// StartEngine renders spec.Start for k, runs it with `sh -c` in its own
// process group (stdout and stderr appended to logPath), and waits until
// spec.HealthURL answers 200. It refuses to start when something already
// answers there (it would be measured instead of the candidate). On a
// failed start the engine is stopped (the stop command, if any, then the
// process group) and the error is an *EngineError, whose message ends
// with that stop's error where it failed too.
func StartEngine(ctx context.Context, spec EngineSpec, k Knobs, logPath string) (*Engine, error) {
	if spec.HealthTimeout <= 0 {
		spec.HealthTimeout = 60 * time.Second
	}
	if spec.StopTimeout <= 0 {
		spec.StopTimeout = 20 * time.Second
	}
	// Truncated: an earlier verify's log of the candidate is not this
	// start's, and the results name this file whether or not it starts.
	lf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC|os.O_APPEND, 0o644)
	if err != nil {
		return nil, &EngineError{StatusStartFailed, err.Error()}
	}
	line, err := Render("engine-cmd", spec.Start, k)
	if err != nil {
		// A template may fail for one candidate's knobs only: its log says
		// so. The error quotes the action that failed, a key in it too.
		msg := spec.Masked(err.Error())
		fmt.Fprintf(lf, logPrefix+"%s\n", msg)
		return nil, &EngineError{StatusStartFailed, withStopError(msg, closeLog(lf))}
	}
	health := urlshow.String(spec.HealthURL) // as it may be shown
	if Healthy(ctx, spec.HealthURL, spec.healthKey()) {
		msg := fmt.Sprintf("%s already answers before the engine was started: refusing to measure a server verify did not start (stop it or use another port)", health)
		fmt.Fprintf(lf, logPrefix+"%s\n", msg)
		return nil, &EngineError{StatusStartFailed, withStopError(msg, closeLog(lf))}
	}
	// Masked as written: the log is masked again only once an engine stops.
	fmt.Fprintf(lf, logPrefix+"%s: sh -c %q\n", time.Now().UTC().Format(time.RFC3339), spec.Masked(line))
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = spec.Dir
	cmd.Stdout, cmd.Stderr = lf, lf
	setProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		return nil, &EngineError{StatusStartFailed, withStopError(err.Error(), closeLog(lf))}
	}
	running.Store(cmd.Process.Pid, struct{}{})
	e := &Engine{spec: spec, health: health, knobs: k, cmd: cmd, log: lf, logPath: logPath, done: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		e.mu.Lock()
		e.exitErr, e.exited = err, true
		e.mu.Unlock()
		close(e.done)
	}()
	deadline := time.Now().Add(spec.HealthTimeout)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		if Healthy(ctx, spec.HealthURL, spec.healthKey()) {
			return e, nil
		}
		// An exit 0 is a launcher that leaves the engine running: keep
		// polling.
		if exited, err := e.exit(); exited && err != nil {
			// The log's tail as the start command left it, then the stop
			// command: a launcher that failed may have started what only it
			// reaches (a container, a deployment), as after a health timeout.
			msg := fmt.Sprintf("engine command %s before the engine was healthy%s", err, e.logTail())
			return nil, &EngineError{StatusStartFailed, withStopError(msg, e.Stop(context.WithoutCancel(ctx)))}
		}
		if time.Now().After(deadline) {
			msg := fmt.Sprintf("%s not healthy after %v%s", health, spec.HealthTimeout, e.logTail())
			return nil, &EngineError{StatusHealth, withStopError(msg, e.Stop(context.WithoutCancel(ctx)))}
		}
		select {
		case <-ctx.Done():
			return nil, &EngineError{StatusCanceled, withStopError(ctx.Err().Error(), e.Stop(context.WithoutCancel(ctx)))}
		case <-tick.C:
		}
	}
}

func (e *Engine) exit() (bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.exited, e.exitErr
}

// Alive checks the engine after a run: a foreground engine command must
// still be running, and the health URL must answer. The reason says what
// went wrong when it is not.
func (e *Engine) Alive(ctx context.Context) (bool, string) {
	// A non-zero exit is a death; an exit 0 is a launcher that left the
	// engine running, or an engine that shut down: the health URL says.
	if exited, err := e.exit(); exited && err != nil {
		return false, fmt.Sprintf("engine command ended during the run (%v)%s", err, e.logTail())
	}
	for try := range 3 { // a busy engine may miss one probe
		if Healthy(ctx, e.spec.HealthURL, e.spec.healthKey()) {
			return true, ""
		}
		if try < 2 && !pause(ctx, 300*time.Millisecond) {
			break
		}
	}
	if err := ctx.Err(); err != nil {
		return false, fmt.Sprintf("%s not checked: %v", e.health, err)
	}
	return false, fmt.Sprintf("%s no longer answers%s", e.health, e.logTail())
}

// pause waits d, or less when ctx ends first; it reports whether the
// whole wait passed.
func pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Stop runs the stop template (if any), then ends the start command's
// process group (SIGTERM, then SIGKILL after the stop timeout), and waits
// for the health URL to stop answering, so that the next candidate's
// engine can take the port. It is safe to call twice.
func (e *Engine) Stop(ctx context.Context) error {
	if e.stopped {
		return nil
	}
	e.stopped = true
	var errs []error
	if e.spec.Stop != "" {
		line, err := Render("stop-cmd", e.spec.Stop, e.knobs)
		if err == nil {
			fmt.Fprintf(e.log, logPrefix+"stop: sh -c %q\n", e.spec.Masked(line))
			sctx, cancel := context.WithTimeout(ctx, e.spec.StopTimeout)
			cmd := exec.CommandContext(sctx, "sh", "-c", line)
			cmd.Dir = e.spec.Dir
			cmd.Stdout, cmd.Stderr = e.log, e.log
			setProcessGroup(cmd)
			cmd.Cancel = func() error { return killGroup(cmd.Process.Pid, true) }
			err = cmd.Run()
			cancel()
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("stop command: %s", e.spec.Masked(err.Error()))) // a render error quotes the template
		}
	}
	e.kill()
	deadline := time.Now().Add(e.spec.StopTimeout)
	for Healthy(ctx, e.spec.HealthURL, e.spec.healthKey()) {
		if time.Now().After(deadline) {
			errs = append(errs, fmt.Errorf("%s still answers %v after the engine was stopped", e.health, e.spec.StopTimeout))
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err := closeLog(e.log); err != nil {
		errs = append(errs, err)
	}
	if err := e.maskLog(); err != nil {
		errs = append(errs, fmt.Errorf("masking the key in the engine log: %w", err))
	}
	return errors.Join(errs...)
}

// closeLog syncs and closes the engine log: a write-back error may show
// only then, and a log cut short should not pass for the engine's whole
// output. The error names the log.
func closeLog(f *os.File) error {
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("engine log: %w", err)
	}
	return nil
}

// withStopError is a failed start's message msg with the error, if any,
// of what followed it: the engine log's close, or Stop's (the stop
// command, a server still answering, the log's close), as what the start
// set up may still run and its log may be cut short.
func withStopError(msg string, err error) string {
	if err == nil {
		return msg
	}
	return msg + "; " + err.Error()
}

// kill ends the start command's process group: SIGTERM to every process
// in it, then SIGKILL to those left when the stop timeout ends. The whole
// group gets the timeout, not only its leader: the leader is often a shell
// that dies at once while the engine it started shuts down gracefully.
func (e *Engine) kill() {
	pid := e.cmd.Process.Pid
	deadline := time.Now().Add(e.spec.StopTimeout)
	killGroup(pid, false)
	for groupAlive(pid) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	killGroup(pid, true)
	<-e.done
	running.Delete(pid)
}

// running holds the process groups of the engines started and not yet
// stopped, for KillEngines.
var running sync.Map

// KillEngines ends at once (SIGKILL) the process group of every engine
// started and not yet stopped, for a process about to exit before its
// clean stop is done: its own process group is not theirs, so nothing
// else would end them, and an engine left running holds its port and
// GPUs.
func KillEngines() {
	running.Range(func(pgid, _ any) bool {
		killGroup(pgid.(int), true)
		return true
	})
}

// mask is the engine's output data with the API keys masked: an engine
// may print its arguments, a key among them.
func (e *Engine) mask(data []byte) []byte { return e.spec.mask(data) }

// Masked is text (a command of s) with the API keys masked: a command may
// hold the key itself rather than the variable naming it.
func (s *EngineSpec) Masked(text string) string { return string(s.mask([]byte(text))) }

func (s *EngineSpec) mask(data []byte) []byte {
	// A key may be given in the health URL or the base URL as its user,
	// password or query, as well as in a variable.
	keys := append(secret.RawURL(s.HealthURL), secret.RawURL(s.BaseURL)...)
	keys = append(keys, secret.Env(s.KeyEnv), secret.Env(s.HealthKeyEnv))
	return secret.New(keys...).Bytes(data)
}

// maskLog rewrites the engine log, once the engine is stopped, with the
// keys masked: the key is written to no file. A log without a key is
// left as it is.
func (e *Engine) maskLog() error {
	data, err := os.ReadFile(e.logPath)
	if err != nil {
		return err
	}
	if masked := e.mask(data); !bytes.Equal(masked, data) {
		return atomicfile.WriteFile(e.logPath, masked)
	}
	return nil
}

// logTail is the end of the engine log, for error messages.
func (e *Engine) logTail() string {
	data, err := os.ReadFile(e.logPath)
	if err != nil || len(data) == 0 {
		return ""
	}
	data = e.mask(data) // before it is cut: a key cut short would escape the mask
	data = bytes.TrimSpace(textcut.Tail(engineOutput(data), 600))
	if len(data) == 0 {
		return "; log " + e.logPath + " holds no engine output"
	}
	return "; log " + e.logPath + " ends: " + string(data)
}

// engineOutput is the engine log without the lines verify wrote to it
// ("# verify: ..."): a short log's tail would otherwise quote the whole
// command, which verify.json and the log hold, before what the engine said.
func engineOutput(log []byte) []byte {
	var out []byte
	for line := range bytes.Lines(log) {
		if !bytes.HasPrefix(line, []byte(logPrefix)) {
			out = append(out, line...)
		}
	}
	return out
}

// logPrefix opens each line verify writes to an engine log.
const logPrefix = "# verify: "
