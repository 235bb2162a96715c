package verify

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// A median |error| of null is neither a number nor "inf": read back, it
// would pass for an error of 0 (json leaves the float as it was). It is
// read as no number, which the check of a verify.json refuses.
func TestMedianAbsErrorNullRefused(t *testing.T) {
	var back Errors
	err := json.Unmarshal([]byte(`{"tpot_mean_s":null}`), &back)
	if err == nil {
		err = errors.Join(back.check("median_abs_error")...)
	}
	if err == nil || !strings.Contains(err.Error(), "tpot_mean_s") {
		t.Errorf("null median: got %v (err %v), want an error naming the metric", back, err)
	}
}
