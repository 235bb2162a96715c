package traces

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// benchRows is the size of every benchmark trace.
const benchRows = 1_000_000

func benchConfig(n int) SynthConfig {
	c := DefaultSynthConfig()
	c.Requests = n
	c.Arrival = ArrivalSpec{Kind: ArrivalPoisson, Rate: 100}
	c.Prompt = LengthSpec{Kind: LengthLognormal, Mean: 1000, CV: 1}
	c.Output = LengthSpec{Kind: LengthLognormal, Mean: 200, CV: 1}
	return c
}

func reportRows(b *testing.B, rows int) {
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// benchFile writes a 1M-row synthetic trace for one benchmark.
func benchFile(b *testing.B, ext string) string {
	b.Helper()
	r, err := Synthesize(benchConfig(benchRows))
	if err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(b.TempDir(), "bench"+ext)
	if _, err := WriteTrace(b.Context(), p, r); err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkSynthWrite generates 1M rows and writes them (the write target
// is >= 2M rows/s on one core for Parquet).
func BenchmarkSynthWrite(b *testing.B) {
	for _, ext := range []string{".parquet", ".arrow"} {
		b.Run(ext[1:], func(b *testing.B) {
			b.ReportAllocs()
			dir := b.TempDir()
			for b.Loop() {
				r, _ := Synthesize(benchConfig(benchRows))
				if _, err := WriteTrace(b.Context(), filepath.Join(dir, "out"+ext), r); err != nil {
					b.Fatal(err)
				}
			}
			reportRows(b, benchRows)
		})
	}
}

// BenchmarkImportAzureToParquet imports a 1M-row Azure-format CSV held in
// memory and writes it to Parquet.
func BenchmarkImportAzureToParquet(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("TIMESTAMP,ContextTokens,GeneratedTokens\r\n")
	t0 := time.Date(2024, 5, 10, 0, 0, 0, 0, time.UTC)
	for i := range benchRows {
		t := t0.Add(time.Duration(i) * 3700 * time.Microsecond)
		fmt.Fprintf(&sb, "%s+00:00,%d,%d\r\n", t.Format("2006-01-02 15:04:05.000000"), 100+i%4000, 1+i%700)
	}
	data := sb.String()
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	out := filepath.Join(b.TempDir(), "out.parquet")
	for b.Loop() {
		r, err := NewImporter(FormatAzure, strings.NewReader(data), ImportOptions{})
		if err != nil {
			b.Fatal(err)
		}
		n, err := WriteTrace(b.Context(), out, r)
		if err != nil || n != benchRows {
			b.Fatal(n, err)
		}
	}
	reportRows(b, benchRows)
}

// BenchmarkRead streams 1M rows back (the target is >= 10M rows/s on one
// core).
func BenchmarkRead(b *testing.B) {
	for _, ext := range []string{".parquet", ".arrow", ".arrows"} {
		b.Run(ext[1:], func(b *testing.B) {
			path := benchFile(b, ext)
			b.ReportAllocs()
			for b.Loop() {
				r, err := Open(path)
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for r.Next() {
					n++
				}
				if err := r.Err(); err != nil || n != benchRows {
					b.Fatal(n, err)
				}
				r.Close()
			}
			reportRows(b, benchRows)
		})
	}
}

// BenchmarkStats computes stats over 1M rows: from Parquet (read + stats)
// and from memory (the StatsBuilder alone).
func BenchmarkStats(b *testing.B) {
	b.Run("parquet", func(b *testing.B) {
		path := benchFile(b, ".parquet")
		b.ReportAllocs()
		for b.Loop() {
			r, err := Open(path)
			if err != nil {
				b.Fatal(err)
			}
			s, err := ComputeStats(r, SLO{})
			if err != nil || s.Requests != benchRows {
				b.Fatal(s.Requests, err)
			}
			r.Close()
		}
		reportRows(b, benchRows)
	})
	b.Run("memory", func(b *testing.B) {
		const chunk = 1 << 16
		r, _ := Synthesize(benchConfig(chunk))
		var rows []Request
		for r.Next() {
			rows = append(rows, *r.At().Clone())
		}
		span := rows[chunk-1].Arrival + 1
		b.ReportAllocs()
		for b.Loop() {
			sb := NewStatsBuilder(SLO{})
			for i := range benchRows {
				q := &rows[i%chunk]
				q.Arrival = rows[i%chunk].Arrival%span + int64(i/chunk)*span
				sb.Add(q)
			}
			if sb.Stats().Requests != benchRows {
				b.Fatal("count")
			}
		}
		reportRows(b, benchRows)
	})
}
