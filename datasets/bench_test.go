package datasets

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/qa"
)

// writeSyntheticMedQA writes n distinct MedQA-format records (5 options,
// a vignette of about 600 bytes, metamap phrases: about 1 KB a line, like
// the real file) and returns the file size.
func writeSyntheticMedQA(tb testing.TB, path string, n int) int64 {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	vignette := strings.Repeat("A 45-year-old man comes to the physician because of fatigue and shortness of breath on exertion. ", 6)
	type rec struct {
		Question string            `json:"question"`
		Answer   string            `json:"answer"`
		Options  map[string]string `json:"options"`
		MetaInfo string            `json:"meta_info"`
		Idx      string            `json:"answer_idx"`
		Phrases  []string          `json:"metamap_phrases"`
	}
	enc := json.NewEncoder(w)
	for i := range n {
		opts := map[string]string{}
		for j := range 5 {
			opts[string(rune('A'+j))] = fmt.Sprintf("Option %d for item %d", j, i)
		}
		gold := string(rune('A' + i%5))
		r := rec{Question: fmt.Sprintf("Item %d. %s Which of the following is the most likely diagnosis?", i, vignette),
			Answer: opts[gold], Options: opts, MetaInfo: []string{"step1", "step2&3"}[i%2], Idx: gold,
			Phrases: []string{"45 year old man", "physician", "fatigue", "shortness of breath", "exertion"}}
		if err := enc.Encode(r); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	st, err := f.Stat()
	if err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return st.Size()
}

// BenchmarkStreamJSONL streams generated MedQA JSONL files of 20,000 and
// 200,000 items and reports items/s and the peak live heap (HeapInuse,
// sampled every 2,048 items). Loaders hold one record at a time, so the
// peak does not grow with the file; the duplicate-id check (on by default)
// keeps a small entry per question, shown by the dupcheck=off variant.
func BenchmarkStreamJSONL(b *testing.B) {
	for _, n := range []int{20_000, 200_000} {
		path := filepath.Join(b.TempDir(), fmt.Sprintf("synthetic_%d_test.jsonl", n))
		size := writeSyntheticMedQA(b, path, n)
		for _, dup := range []bool{true, false} {
			name := fmt.Sprintf("items=%d/dupcheck=%s", n, map[bool]string{true: "on", false: "off"}[dup])
			b.Run(name, func(b *testing.B) {
				b.SetBytes(size)
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				base, peak := ms.HeapInuse, ms.HeapInuse
				sample := func() {
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapInuse)
				}
				total := 0
				for b.Loop() {
					items := 0
					_, err := Stream(Source{Path: path, SkipDuplicateCheck: !dup}, LoadOptions{}, func(q qa.Question) error {
						items++
						if items%2048 == 0 {
							sample()
						}
						return nil
					})
					if err != nil {
						b.Fatal(err)
					}
					if items != n {
						b.Fatalf("streamed %d items, want %d", items, n)
					}
					sample()
					total += items
				}
				b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "items/s")
				b.ReportMetric(float64(peak)/1e6, "peak-heap-MB")
				b.ReportMetric(float64(peak-base)/1e6, "heap-growth-MB")
				b.ReportMetric(float64(size)/1e6, "file-MB")
			})
		}
	}
}
