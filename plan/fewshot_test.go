package plan

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/protocols/mdagents"
	"github.com/medteam-bench/medteam/qa"
)

// writeMedQA writes qs as a MedQA JSONL file.
func writeMedQA(t *testing.T, path string, qs []qa.Question) {
	t.Helper()
	var sb strings.Builder
	for _, q := range qs {
		opts := map[string]string{}
		for _, o := range q.Options {
			opts[o.Letter] = o.Text
		}
		b, err := json.Marshal(map[string]any{"question": q.Stem, "options": opts, "answer_idx": q.Gold, "answer": opts[q.Gold]})
		if err != nil {
			t.Fatal(err)
		}
		sb.Write(b)
		sb.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// trainQuestions are n questions no dataset has.
func trainQuestions(n int) []qa.Question {
	var out []qa.Question
	for i := range n {
		out = append(out, qa.Question{Stem: "Training case " + string(rune('a'+i)) + ": which drug is first line?",
			Options: []qa.Option{{Letter: "A", Text: "Drug one"}, {Letter: "B", Text: "Drug two"}, {Letter: "C", Text: "Drug three"}, {Letter: "D", Text: "Drug four"}},
			Gold:    "B"})
	}
	return out
}

// TestFewshotFile: --fewshot-file reaches the mdagents arms (their
// exemplars count in the call bounds) and the plan records the split's
// content hash, not its path; without the flag the plan document is what it
// was. A split that shares a question with the evaluated dataset — even one
// --limit leaves out — is refused naming both files and an example id; a
// missing file is refused naming the flag.
func TestFewshotFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "train.jsonl")
	writeMedQA(t, good, trainQuestions(6))
	sample, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	leaky := filepath.Join(dir, "leaky.jsonl")
	writeMedQA(t, leaky, append(trainQuestions(6), sample[len(sample)-1]))

	s := defaultSpec()
	s.Configs, s.Limit = []string{"mdagents"}, 5
	plain, err := Resolve(context.Background(), s, simOpener)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(plain.Doc), "fewshot") {
		t.Fatalf("a plan without --fewshot-file mentions it:\n%s", plain.Doc)
	}
	if lo, _ := plain.Arms[0].Protocol.Calls(3); lo != 2 {
		t.Fatalf("zero-shot mdagents: at least %d calls, want 2 (router, basic answer)", lo)
	}

	s.FewshotFile = good
	r, err := Resolve(context.Background(), s, simOpener)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(r.Doc), `"fewshot_sha256"`) || strings.Contains(string(r.Doc), dir) || r.Hash == plain.Hash {
		t.Fatalf("plan with --fewshot-file (hash %s vs %s):\n%s", r.Hash, plain.Hash, r.Doc)
	}
	// A triage item would meet no exemplar of its kind: still at least 2;
	// at most the router, the recruiter, 5 reasons, 5 opinions, 5 rounds of
	// 5 turns of 5 × (talk, choice, 4 messages) and 5 finals, the moderator.
	if lo, extra := r.Arms[0].Protocol.Calls(3); lo != 2 || lo+extra != 1+1+mdagents.Exemplars+5+5*(5*5*6+5)+1 {
		t.Fatalf("mdagents with 6 training questions: %d–%d calls", lo, lo+extra)
	}

	s.FewshotFile = leaky
	_, err = Resolve(context.Background(), s, simOpener)
	wantID := datasets.MedQAID(sample[len(sample)-1].Stem, sample[len(sample)-1].Options)
	if err == nil || !IsInput(err) || !strings.Contains(err.Error(), "--fewshot-file "+leaky+" shares 1 question(s) with --dataset "+datasets.SampleName) ||
		!strings.Contains(err.Error(), wantID) {
		t.Fatalf("leaky split: %v (want the refusal naming both files and %s)", err, wantID)
	}

	s.FewshotFile = filepath.Join(dir, "missing.jsonl")
	if _, err := Resolve(context.Background(), s, simOpener); err == nil || !IsInput(err) || !strings.Contains(err.Error(), "--fewshot-file "+s.FewshotFile) {
		t.Fatalf("missing split: %v", err)
	}
}

// TestFewshotSweepKey: a sweep file's fewshot_file sets the flag (and is
// loaded when the file is: a missing split names the sweep file).
func TestFewshotSweepKey(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train.jsonl")
	writeMedQA(t, train, trainQuestions(3))
	f := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(f, []byte("arms: [mdagents]\nfewshot_file: "+train+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := defaultSpec()
	if err := LoadSweep(f, &s); err != nil {
		t.Fatal(err)
	}
	if s.FewshotFile != train {
		t.Fatalf("fewshot_file: %q", s.FewshotFile)
	}
	if err := os.WriteFile(f, []byte("arms: [mdagents]\nfewshot_file: "+train+".missing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := LoadSweep(f, &s); err == nil || !strings.Contains(err.Error(), f) || !strings.Contains(err.Error(), "--fewshot-file") {
		t.Fatalf("missing split: %v", err)
	}
}

// TestFewshotMedQAOnly (issue 36 item 4): MDAgents' public code shows
// few-shot exemplars on MedQA only (utils.py: if args.dataset == 'medqa'),
// so --fewshot-file with a dataset that is not MedQA is refused, naming the
// dataset, the code's rule and --fewshot-any; --fewshot-any shows them there
// too and is recorded in the plan; --fewshot-any alone is refused; MedQA
// itself needs no switch. A sweep file's fewshot_any sets the flag.
func TestFewshotMedQAOnly(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train.jsonl")
	writeMedQA(t, train, trainQuestions(6))
	eval := filepath.Join(dir, "eval.jsonl")
	sample, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	writeMedQA(t, eval, sample[:5])

	s := defaultSpec()
	s.Configs, s.FewshotFile = []string{"mdagents"}, train
	medqa, err := Resolve(context.Background(), s, simOpener) // medqa-sample: MedQA, no switch needed
	if err != nil {
		t.Fatalf("MedQA with --fewshot-file: %v", err)
	}

	s.Datasets, s.DatasetName = []string{eval}, datasets.DatasetMedMCQA
	_, err = Resolve(context.Background(), s, simOpener)
	if err == nil || !IsInput(err) {
		t.Fatalf("--fewshot-file on MedMCQA without --fewshot-any: %v, want an input error", err)
	}
	for _, want := range []string{"--fewshot-file " + train, "--dataset " + eval, "that dataset is medmcqa", "args.dataset == 'medqa'", "--fewshot-any"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal lacks %q:\n%v", want, err)
		}
	}

	s.FewshotAny = true
	r, err := Resolve(context.Background(), s, simOpener)
	if err != nil {
		t.Fatalf("--fewshot-any: %v", err)
	}
	if !strings.Contains(string(r.Doc), `"fewshot_any": true`) || strings.Contains(string(medqa.Doc), "fewshot_any") {
		t.Fatalf("fewshot_any not recorded in the plan (or recorded without the switch):\n%s", r.Doc)
	}

	s.FewshotFile = ""
	if _, err := Resolve(context.Background(), s, simOpener); err == nil || !IsInput(err) || !strings.Contains(err.Error(), "--fewshot-any without --fewshot-file") {
		t.Fatalf("--fewshot-any alone: %v", err)
	}

	f := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(f, []byte("arms: [mdagents]\nfewshot_file: "+train+"\nfewshot_any: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s = defaultSpec()
	if err := LoadSweep(f, &s); err != nil || !s.FewshotAny {
		t.Fatalf("sweep fewshot_any: %v, %v", s.FewshotAny, err)
	}
}
