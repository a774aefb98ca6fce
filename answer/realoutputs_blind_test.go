package answer_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/answer"
)

// realBlind is a second, blind reading of 1,395 corpus replies (see
// testdata/realoutputs_labels.md): every labelled disagreement and 600
// replies drawn at random (seed 20261127) from those where medteam and
// MMLU-Pro's extraction agree, read by readers who saw only the options and
// the reply — not medteam's reading, MMLU-Pro's, the labels or the model.
const realBlind = "testdata/realoutputs_blind.jsonl"

type blindRow struct {
	Model  string `json:"model"`
	QID    int    `json:"question_id"`
	Sample string `json:"sample"` // "disagreement" or "agreement"
	Blind  string `json:"blind"`  // a letter or "none"
	Why    string `json:"why"`    // "CONFLICT: …" when the reply states different answers
}

// readCorpus returns every reply of the corpus by "model|question id".
func readCorpus(t *testing.T, path string) map[string]realReply {
	out := map[string]realReply{}
	eachReply(t, path, func(r realReply) { out[fmt.Sprintf("%s|%d", r.Model, r.QID)] = r })
	return out
}

func loadBlind(t *testing.T) []blindRow {
	f, err := os.Open(realBlind)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []blindRow
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		var b blindRow
		if err := json.Unmarshal(sc.Bytes(), &b); err != nil {
			t.Fatalf("%s:%d: %v", realBlind, n, err)
		}
		if b.Blind != "none" && len(b.Blind) != 1 || b.Why == "" || b.Sample != "disagreement" && b.Sample != "agreement" {
			t.Fatalf("%s:%d: malformed row %+v", realBlind, n, b)
		}
		out = append(out, b)
	}
	return out
}

// TestRealOutputsBlind checks medteam's reading, and the labels, against
// the blind reading: medteam gives no letter the blind reader does not see
// (misreads, at most maxRealMisreads), its abstentions where the blind
// reader saw a letter are counted (those on replies that state conflicting
// answers apart), and every label of a disagreement equals the blind
// reading except on a reply the blind reader marked CONFLICT, where the
// label may be "none" (ambiguity is an abstention).
func TestRealOutputsBlind(t *testing.T) {
	path := findRealOutputs(t)
	if path == "" {
		t.Skip("real-reply corpus not found: looked for ../" + realOutputs + " above the package (set MEDTEAM_REALOUTPUTS to its path)")
	}
	if testing.Short() || raceEnabled {
		t.Skip("1,395 real replies: run without -short and -race (make test's second command)")
	}
	corpus, labels := readCorpus(t, path), loadRealLabels(t)
	type count struct{ n, same, misread, abstained, conflict int }
	per := map[string]*count{"disagreement": {}, "agreement": {}}
	for _, b := range loadBlind(t) {
		key := fmt.Sprintf("%s|%d", b.Model, b.QID)
		r, ok := corpus[key]
		if !ok {
			t.Fatalf("%s: not in the corpus", key)
		}
		got, want := answer.Parse(r.Response, r.options()).First(), strings.TrimSuffix(b.Blind, "none")
		conflict := strings.HasPrefix(b.Why, "CONFLICT:")
		c := per[b.Sample]
		c.n++
		switch {
		case got == want:
			c.same++
		case got != "":
			c.misread++
			t.Logf("misread %s: medteam %s, the blind reader %q (%s)", key, got, b.Blind, b.Why)
		case conflict:
			c.conflict++
		default:
			c.abstained++
		}
		if l, ok := labels[key]; b.Sample == "disagreement" && (!ok || l.Label != b.Blind && !(conflict && l.Label == "none")) {
			t.Errorf("%s: label %q, blind reading %q (%s): read the reply again and settle it", key, l.Label, b.Blind, b.Why)
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%-13s %7s %6s %8s %10s %18s\n", "sample", "replies", "same", "misread", "abstained", "abstained:conflict")
	misreads := 0
	for _, s := range []string{"disagreement", "agreement"} {
		c := per[s]
		fmt.Fprintf(&sb, "%-13s %7d %6d %8d %10d %18d\n", s, c.n, c.same, c.misread, c.abstained, c.conflict)
		misreads += c.misread
	}
	t.Log("medteam's reading against the blind reading:\n" + sb.String())
	if misreads > maxRealMisreads {
		t.Errorf("%d misreads against the blind reading, want at most %d", misreads, maxRealMisreads)
	}
	if per["agreement"].n != 600 || per["disagreement"].n != len(labels) {
		t.Errorf("blind sample: %d agreements, %d disagreements; want 600 and one per label (%d)", per["agreement"].n, per["disagreement"].n, len(labels))
	}
}
