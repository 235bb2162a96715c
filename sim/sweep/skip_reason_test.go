package sweep

import "testing"

// A token budget whose activation reserve leaves no room for a KV cache
// beside weights that fit is skipped as kv_too_small: the weights fit.
// The reason was read from the error's text, whose "does not fit" filed
// it under weights_do_not_fit.
func TestSkipsAReserveThatCrowdsOutTheKVCacheAsKVTooSmall(t *testing.T) {
	_, s, err := writeSpec(t, `base = "base.toml"
[sweep]
"batch.max_num_batched_tokens" = [8192, 10000000]
`+sloTOML)
	if err != nil {
		t.Fatal(err)
	}
	ex := mustExpand(t, s)
	if c := ex.Configs[0]; c.Skip != "" {
		t.Fatalf("%s: skip %q (%s), want it run", c.Label, c.Skip, c.SkipDetail)
	}
	if c := ex.Configs[1]; c.Skip != SkipKVTooSmall {
		t.Errorf("%s: skip %q (%s), want %q", c.Label, c.Skip, c.SkipDetail, SkipKVTooSmall)
	}
}
