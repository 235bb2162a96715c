package plan

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/model"
)

// A device count that divides the attention heads but neither divides nor
// is a multiple of the KV heads is refused for the KV heads, and the error
// says so: 7 divides Qwen2.5-7B's 28 heads, not its 4 KV heads, yet the
// error said only that tensor parallelism needs a divisor of the heads.
func TestResolveSaysTheKVHeadsRule(t *testing.T) {
	text := strings.NewReplacer(`name = "Llama-3.1-8B"`, `name = "Qwen2.5-7B"`, "count = 1", "count = 7").Replace(valid)
	_, err := mustParse(t, text).Resolve(model.DefaultCatalog())
	if err == nil || !strings.Contains(err.Error(), "device.count: 7 devices cannot split") || !strings.Contains(err.Error(), "multiple of the KV heads") {
		t.Errorf("err = %v\nwant device.count refused saying a count must divide or be a multiple of the KV heads", err)
	}
}
