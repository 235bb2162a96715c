package traces

import "testing"

// The number of requests asked for is a controlled variable: two synthetic
// traces of 10 and 1,000 requests must not carry the same metadata.
func TestSynthRecordsRequests(t *testing.T) {
	c := DefaultSynthConfig()
	c.Requests = 10
	r, err := Synthesize(c)
	if err != nil {
		t.Fatal(err)
	}
	if v := r.Meta().Extra["requests"]; v != "10" {
		t.Errorf("meta x.requests = %q, want 10 (meta %+v)", v, r.Meta())
	}
	c.PromptLengths, c.Repeats = []int32{8, 16}, 2
	if r, err = Synthesize(c); err != nil {
		t.Fatal(err)
	}
	if v, ok := r.Meta().Extra["requests"]; ok {
		t.Errorf("prompt matrix: meta x.requests = %q, want none (prompt_matrix %q sets the rows)", v, r.Meta().Extra["prompt_matrix"])
	}
}
