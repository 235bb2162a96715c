package verify

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/traces"
)

// Consistency compares the generated text of the same requests (by id)
// across candidates (and across each candidate's runs with --repeat;
// a run is then one of the compared, labelled "LABEL (run K)"). With temperature 0 an engine that is batch-invariant
// gives every request the same text whatever the batch it ran in; a
// fraction that differs is a finding to record (kernels that reduce in a
// batch-size-dependent order), not something verify forces away.
type Consistency struct {
	// Compared counts request ids that succeeded in at least two
	// candidates (an empty answer included); Differ those whose texts are
	// not all equal. A request that failed in a candidate, or whose text
	// was cut at the bound on the text kept, is compared among the others
	// only.
	Compared int     `json:"compared"`
	Differ   int     `json:"differ"`
	Fraction float64 `json:"fraction_differ"`
	// Reference is the first measured candidate; PerCandidate compares each
	// other candidate with it.
	Reference    string           `json:"reference"`
	PerCandidate []ConsistencyRow `json:"per_candidate"`
	// Examples are up to 5 request ids whose texts differ.
	Examples []string `json:"examples"`
	// Unread names the candidates that ran but whose measured trace could
	// not be read back, with why: they are not in the comparison.
	Unread []string `json:"unread,omitempty"`
}

// RequestKey names one request of a trace: its id, and which of the rows
// with that id it is (0 for the first, in input order). Every candidate
// replays the same rows in the same order, so a trace that repeats an id
// still pairs each request with itself.
type RequestKey struct {
	ID string
	N  int
}

func (k RequestKey) String() string {
	if k.N == 0 {
		return k.ID
	}
	return fmt.Sprintf("%s (row %d with this id)", k.ID, k.N+1)
}

// ConsistencyRow is one candidate against the reference.
type ConsistencyRow struct {
	Label    string  `json:"label"`
	Compared int     `json:"compared"`
	Differ   int     `json:"differ"`
	Fraction float64 `json:"fraction_differ"`
}

// CompareOutputs compares texts across runs: runs[i] maps each request to
// its generated text for the candidate labelled labels[i] (successful
// requests only).
func CompareOutputs(labels []string, runs []map[RequestKey]string) Consistency {
	var cs Consistency
	cs.PerCandidate, cs.Examples = []ConsistencyRow{}, []string{}
	if len(runs) == 0 {
		return cs
	}
	cs.Reference = labels[0]
	ids := map[RequestKey]bool{}
	for _, r := range runs {
		for id := range r {
			ids[id] = true
		}
	}
	sorted := make([]RequestKey, 0, len(ids))
	for id := range ids {
		sorted = append(sorted, id)
	}
	slices.SortFunc(sorted, func(a, b RequestKey) int { return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.N, b.N)) })
	for _, id := range sorted {
		n, differ := 0, false
		var first string
		for _, r := range runs {
			t, ok := r[id]
			if !ok {
				continue
			}
			if n == 0 {
				first = t
			} else if t != first {
				differ = true
			}
			n++
		}
		if n < 2 {
			continue
		}
		cs.Compared++
		if differ {
			cs.Differ++
			if len(cs.Examples) < 5 {
				cs.Examples = append(cs.Examples, id.String())
			}
		}
	}
	if cs.Compared > 0 {
		cs.Fraction = float64(cs.Differ) / float64(cs.Compared)
	}
	ref := runs[0]
	for i := 1; i < len(runs); i++ {
		row := ConsistencyRow{Label: labels[i]}
		for id, t := range runs[i] {
			if rt, ok := ref[id]; ok {
				row.Compared++
				if rt != t {
					row.Differ++
				}
			}
		}
		if row.Compared > 0 {
			row.Fraction = float64(row.Differ) / float64(row.Compared)
		}
		cs.PerCandidate = append(cs.PerCandidate, row)
	}
	return cs
}

// outputTexts maps each request (rows in input order) to its generated
// text for the successful, non-warm-up rows. verify replays with the text kept, so a successful
// row's text is its answer: an empty one is an answer like any other (one
// candidate's empty answer against another's text is a difference, two
// empty answers the same), even when every answer of the run is empty.
// A failed row gave no answer and is left out, and so is a text cut at
// the bound on the text kept: two cut at the same bytes may differ past
// the cut, and a head is no answer to hold against a whole one.
func outputTexts(rows []*traces.Request) map[RequestKey]string {
	m := map[RequestKey]string{}
	seen := map[string]int{}
	for _, r := range rows {
		k := RequestKey{ID: r.ID, N: seen[r.ID]}
		seen[r.ID]++
		if r.Warmup || !r.Succeeded() || replay.TextCut(r.OutputText) {
			continue
		}
		m[k] = r.OutputText
	}
	return m
}
