package traces

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// importAll imports path fully into memory (tests only).
func importAll(t *testing.T, path string, format ImportFormat, opt ImportOptions) (Meta, []*Request) {
	t.Helper()
	r, err := Import(path, format, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []*Request
	for r.Next() {
		out = append(out, r.At().Clone())
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return r.Meta(), out
}

func TestImportAzureConvFull(t *testing.T) {
	path := filepath.Join("..", "testdata", "azure2023", "AzureLLMInferenceTrace_conv.csv")
	r, err := Import(path, FormatAuto, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s, err := ComputeStats(r, SLO{})
	if err != nil {
		t.Fatal(err)
	}
	// The file has 19,367 lines (header + 19,366 rows); wc -l says 19,366
	// because the last row has no newline.
	if s.Requests != 19366 {
		t.Errorf("requests = %d, want 19366", s.Requests)
	}
	if math.Abs(s.SpanSeconds-3502) > 1 {
		t.Errorf("span = %.3f s, want 3502 ± 1", s.SpanSeconds)
	}
	if s.MeanRate == nil {
		t.Fatal("no mean rate")
	}
	if math.Abs(*s.MeanRate-5.53) > 0.01 || math.Round(s.Input.Mean) != 1155 || math.Round(s.Output.Mean) != 211 {
		t.Errorf("rate %.3f, input mean %.1f, output mean %.1f: want 5.53, 1155, 211 (SOURCES.md)", *s.MeanRate, s.Input.Mean, s.Output.Mean)
	}
	if s.Input.P50 != 1020 || s.Output.P50 != 129 {
		t.Errorf("p50 input %d output %d, want 1020 and 129", s.Input.P50, s.Output.P50)
	}
	m := r.Meta()
	if m.Source != "azure:AzureLLMInferenceTrace_conv.csv" {
		t.Errorf("source = %q", m.Source)
	}
	if sum := m.Checksums["AzureLLMInferenceTrace_conv.csv"]; !strings.HasPrefix(sum, "sha256:") || len(sum) != 7+64 {
		t.Errorf("checksum = %q", sum)
	}
}

func TestImportAzureCode(t *testing.T) {
	_, rows := importAll(t, "testdata/azure2023_code_head200.csv", FormatAzure, ImportOptions{})
	if len(rows) != 200 {
		t.Fatalf("rows = %d", len(rows))
	}
	// 2023-11-16 18:17:03.9799600 -> 18:17:04.0319600 is 52 ms.
	if rows[0].Arrival != 0 || rows[1].Arrival != 52_000_000 || rows[0].PromptTokens != 4808 || rows[0].OutputTokens != 10 {
		t.Errorf("rows[0..1] = %+v %+v", rows[0], rows[1])
	}
	if rows[0].ID != "2" {
		t.Errorf("ID = %q, want the source line 2", rows[0].ID)
	}
}

func TestParseDateTime(t *testing.T) {
	base, ok := parseDateTime("2024-05-10 00:00:00")
	if !ok {
		t.Fatal("plain datetime rejected")
	}
	for s, want := range map[string]int64{
		"2024-05-10 00:00:00.009930+00:00": 9_930_000,
		"2024-05-10 00:00:00.00993":        9_930_000,
		"2024-05-10 00:00:00.0099300":      9_930_000,
		"2024-05-10T00:00:01Z":             1e9,
		"2024-05-10 02:00:00+02:00":        0,
		"2024-05-09 22:00:00.5-02:00":      5e8,
	} {
		got, ok := parseDateTime(s)
		if !ok || got-base != want {
			t.Errorf("%s: got %d %v, want +%d", s, got-base, ok, want)
		}
	}
	for _, s := range []string{"2024-02-30 00:00:00", "2024-05-10 00:00:00.", "1969-12-31 23:59:59", "2024-05-10 25:00:00", "2024-05-10 00:00:00+0000", "x"} {
		if _, ok := parseDateTime(s); ok {
			t.Errorf("%q accepted", s)
		}
	}
}

func TestImportAzure2024Timestamps(t *testing.T) {
	in := "TIMESTAMP,ContextTokens,GeneratedTokens\r\n" +
		"2024-05-10 00:00:00.009930+00:00,100,10\r\n" +
		"2024-05-10 00:00:00.01+00:00,200,20\r\n" +
		"2024-05-10 00:00:01.1234567+00:00,300,30"
	rows := importString(t, FormatAzure, in, ImportOptions{})
	want := []int64{0, 70_000, 1_113_526_700}
	for i, r := range rows {
		if r.Arrival != want[i] {
			t.Errorf("row %d arrival = %d, want %d", i, r.Arrival, want[i])
		}
	}
}

func importString(t *testing.T, f ImportFormat, in string, opt ImportOptions) []*Request {
	t.Helper()
	rows, err := importStringErr(f, in, opt)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func importStringErr(f ImportFormat, in string, opt ImportOptions) ([]*Request, error) {
	r, err := NewImporter(f, strings.NewReader(in), opt)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out []*Request
	for r.Next() {
		out = append(out, r.At().Clone())
	}
	return out, r.Err()
}

func TestImportBurstGPT(t *testing.T) {
	_, rows := importAll(t, "testdata/burstgpt_v1_first400.csv", FormatAuto, ImportOptions{})
	failed := 0
	for _, r := range rows {
		if r.SourceFailed {
			failed++
			if r.OutputTokens != 0 {
				t.Errorf("failed row with response tokens: %+v", r)
			}
		}
	}
	if len(rows) != 400 || failed != 17 {
		t.Errorf("rows %d failed %d, want 400 and 17", len(rows), failed)
	}
	if rows[0].Class != "ChatGPT/conversation" || rows[1].Arrival != 40e9 {
		t.Errorf("rows[0..1] = %+v %+v", rows[0], rows[1])
	}
	_, kept := importAll(t, "testdata/burstgpt_v1_first400.csv", FormatBurstGPT, ImportOptions{DropFailed: true})
	if len(kept) != 383 {
		t.Errorf("with DropFailed: %d rows, want 383", len(kept))
	}
	s, err := ComputeStats(&sliceReader{rows: rows}, SLO{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(s.SpanSeconds-37269) > 1 || s.SourceFailed != 17 {
		t.Errorf("span %.0f, source failed %d; want 37269 and 17", s.SpanSeconds, s.SourceFailed)
	}
	// The failed rows are never served: the lengths are those of the rows
	// DropFailed keeps (over all 400, the input mean is 520.5).
	k, err := ComputeStats(&sliceReader{rows: kept}, SLO{})
	if err != nil {
		t.Fatal(err)
	}
	if *s.Input != *k.Input || *s.Output != *k.Output || math.Round(s.Input.Mean) != 544 {
		t.Errorf("lengths in %+v out %+v; want those without the failed rows, in %+v out %+v (input mean 543.6)", *s.Input, *s.Output, *k.Input, *k.Output)
	}
}

func TestImportBurstGPTv2Layout(t *testing.T) {
	in := "Timestamp,Session ID,Elapsed time,Model,Request tokens,Response tokens,Total tokens,Log Type\n" +
		"0.5,s1,2.5,GPT-4,10,20,30,API log\n" +
		"1.25,s2,1,ChatGPT,0,0,0,Conversation log\n"
	rows := importString(t, FormatBurstGPT, in, ImportOptions{})
	if len(rows) != 2 || rows[0].SessionID != "s1" || rows[0].Class != "GPT-4/api" || rows[1].Arrival != 750_000_000 || !rows[1].SourceFailed {
		t.Errorf("rows = %+v %+v", rows[0], rows[1])
	}
	if f, err := Sniff(bufioString(in)); err != nil || f != FormatBurstGPT {
		t.Errorf("sniff = %v %v", f, err)
	}
}

func TestImportVidur(t *testing.T) {
	_, rows := importAll(t, "testdata/vidur_splitwise_conv_head200.csv", FormatAuto, ImportOptions{})
	if len(rows) != 200 || rows[1].Arrival != 4_314_579_000 || rows[1].PromptTokens != 396 || rows[1].OutputTokens != 109 {
		t.Errorf("%d rows, rows[1] = %+v", len(rows), rows[1])
	}
}

func TestImportMooncake(t *testing.T) {
	m, rows := importAll(t, "testdata/mooncake_head200.jsonl", FormatAuto, ImportOptions{})
	if m.BlockSize != 512 || len(rows) != 200 {
		t.Fatalf("block size %d rows %d", m.BlockSize, len(rows))
	}
	want := []uint64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}
	if !reflect.DeepEqual(rows[0].PrefixHashes, want) || rows[0].PromptTokens != 6758 || rows[0].OutputTokens != 500 {
		t.Errorf("rows[0] = %+v", rows[0])
	}
	for _, r := range rows {
		if n := (int(r.PromptTokens) + 511) / 512; len(r.PrefixHashes) != n {
			t.Errorf("row %s: %d hashes for %d tokens", r.ID, len(r.PrefixHashes), r.PromptTokens)
			break
		}
	}
}

func TestMooncakeParquetRoundTripKeepsHashes(t *testing.T) {
	src := filepath.Join("..", "testdata", "mooncake", "conversation_trace.jsonl")
	r, err := Import(src, FormatMooncake, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "mooncake.parquet")
	n, err := WriteTrace(t.Context(), out, r)
	if err != nil {
		t.Fatal(err)
	}
	if n != 12031 {
		t.Errorf("wrote %d rows, want 12031", n)
	}
	_, want := importAll(t, src, FormatMooncake, ImportOptions{})
	meta, got, err := ReadAll(out)
	if err != nil {
		t.Fatal(err)
	}
	if meta.BlockSize != 512 || meta.Source != "mooncake:conversation_trace.jsonl" || len(meta.Checksums) != 1 {
		t.Errorf("meta = %+v", meta)
	}
	sameRows(t, got, want)
	s, err := ComputeStats(&sliceReader{rows: got}, SLO{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Requests != 12031 || math.Abs(s.SpanSeconds-3537) > 1 || s.PrefixReuseRatio == nil || *s.PrefixReuseRatio <= 0 || *s.PrefixReuseRatio >= 1 {
		t.Errorf("stats = %+v", s)
	}
}

func TestImportMooncakeSpread(t *testing.T) {
	in := `{"timestamp": 0, "input_length": 1, "output_length": 1, "hash_ids": [1]}
{"timestamp": 0, "input_length": 1, "output_length": 1, "hash_ids": [2]}
{"timestamp": 0, "input_length": 1, "output_length": 1, "hash_ids": [3]}
{"timestamp": 3000, "input_length": 1, "output_length": 1, "hash_ids": [4]}
{"timestamp": 4000, "input_length": 1, "output_length": 1, "hash_ids": [5]}
{"timestamp": 4000, "input_length": 1, "output_length": 1, "hash_ids": [6]}
`
	rows := importString(t, FormatMooncake, in, ImportOptions{Spread: 3e9})
	want := []int64{0, 1e9, 2e9, 3e9, 4e9, 5.5e9}
	for i, r := range rows {
		if r.Arrival != want[i] || r.PrefixHashes[0] != uint64(i+1) {
			t.Errorf("row %d: arrival %d hash %v, want %d", i, r.Arrival, r.PrefixHashes, want[i])
		}
	}
	// The group at 3 s is cut short by the next arrival at 4 s.
	in2 := strings.Replace(in, `"timestamp": 3000`, `"timestamp": 0`, 1)
	rows = importString(t, FormatMooncake, in2, ImportOptions{Spread: 8e9})
	want = []int64{0, 1e9, 2e9, 3e9, 4e9, 8e9}
	for i, r := range rows {
		if r.Arrival != want[i] {
			t.Errorf("cut group: row %d arrival %d, want %d", i, r.Arrival, want[i])
		}
	}
}

func TestImportShareGPT(t *testing.T) {
	in := `[
 {"id": "a", "conversations": [{"from": "human", "value": "hello there"}, {"from": "gpt", "value": "hi"}]},
 {"id": "b", "conversations": [{"from": "gpt", "value": "orphan"}]},
 {"id": 7, "conversations": [{"from": "system", "value": "sys"}, {"from": "human", "value": "héllo"}, {"from": "gpt", "value": "12345678"}, {"from": "gpt", "value": "ignored"}]}
]`
	opt := ImportOptions{Rate: 2, Seed: 42}
	rows := importString(t, FormatShareGPT, in, opt)
	if len(rows) != 2 {
		t.Fatalf("rows = %d, want 2 (b has no human turn)", len(rows))
	}
	// "hello there" is 11 bytes -> 3 tokens; "héllo" is 6 bytes -> 2.
	if rows[0].ID != "a" || rows[0].PromptTokens != 3 || rows[0].OutputTokens != 1 || rows[0].Arrival != 0 {
		t.Errorf("rows[0] = %+v", rows[0])
	}
	if rows[1].ID != "7" || rows[1].PromptTokens != 2 || rows[1].OutputTokens != 2 || rows[1].Arrival <= 0 {
		t.Errorf("rows[1] = %+v", rows[1])
	}
	again := importString(t, FormatShareGPT, in, opt)
	if again[1].Arrival != rows[1].Arrival {
		t.Error("arrivals differ for the same seed")
	}
	if _, err := importStringErr(FormatShareGPT, in, ImportOptions{}); err == nil || !strings.Contains(err.Error(), "rate") {
		t.Errorf("err = %v, want a complaint about the rate", err)
	}
}

func TestImportServesimChecksOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.csv")
	os.WriteFile(path, []byte("arrival_ns,prompt_tokens,output_tokens\n5,1,1\n3,1,1\n"), 0o644)
	r, err := Import(path, FormatAuto, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for r.Next() {
	}
	if err := r.Err(); err == nil || !strings.Contains(err.Error(), "t.csv: line 3: arrival_ns: arrival goes back in time") {
		t.Errorf("err = %v", err)
	}
}

func TestSniff(t *testing.T) {
	for in, want := range map[string]ImportFormat{
		"TIMESTAMP,ContextTokens,GeneratedTokens\n":         FormatAzure,
		"\ufeffTIMESTAMP,ContextTokens,GeneratedTokens\r\n": FormatAzure,
		"Timestamp,Model,Request tokens,Response tokens\n":  FormatBurstGPT,
		"arrived_at,num_prefill_tokens,num_decode_tokens\n": FormatVidur,
		`{"timestamp": 0, "input_length": 1}`:               FormatMooncake,
		"  [\n{\"id\":1}]":                                  FormatShareGPT,
		"# servesim.source=x\nid,arrival_ns\n":              FormatServesim,
		"arrival_ns,prompt_tokens,output_tokens\n":          FormatServesim,
		`{"meta": {}}`: FormatServesim,
		"PAR1\x00\x00": FormatServesim,
	} {
		got, err := Sniff(bufioString(in))
		if err != nil || got != want {
			t.Errorf("Sniff(%.30q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "a,b,c\n", `{"x": 1}`} {
		if f, err := Sniff(bufioString(in)); err == nil {
			t.Errorf("Sniff(%q) = %v, want an error", in, f)
		}
	}
}
