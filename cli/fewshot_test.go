package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestFewshotFlag: --fewshot-file reaches the plan spec, and on a sweep the
// command line's value wins over the file's fewshot_file.
func TestFewshotFlag(t *testing.T) {
	var got *RunOptions
	cmd := NewCmdRun(&Factory{Out: io.Discard, Err: io.Discard}, func(_ context.Context, o *RunOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--fewshot-file", "train.jsonl", "--config", "mdagents"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Spec.FewshotFile != "train.jsonl" {
		t.Fatalf("--fewshot-file: spec %+v", got.Spec)
	}

	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fileSplit := write("file.jsonl", `{"question": "Which drug is first line for a?", "options": {"A": "One", "B": "Two", "C": "Three", "D": "Four"}, "answer_idx": "B", "answer": "Two"}`+"\n")
	flagSplit := write("flag.jsonl", `{"question": "Which drug is first line for b?", "options": {"A": "One", "B": "Two", "C": "Three", "D": "Four"}, "answer_idx": "B", "answer": "Two"}`+"\n")
	sweep := write("s.yaml", "arms: [mdagents]\nfewshot_file: "+fileSplit+"\n")
	var so *SweepOptions
	scmd := NewCmdSweep(&Factory{Out: io.Discard, Err: io.Discard}, func(_ context.Context, o *SweepOptions) error { so = o; return nil })
	scmd.SetArgs([]string{sweep, "--fewshot-file", flagSplit, "--resume", "somewhere"})
	if err := scmd.Execute(); err != nil {
		t.Fatal(err)
	}
	// runSweep stops at the resume refusal after applying the file and the flags.
	if err := runSweep(context.Background(), &Factory{Out: io.Discard, Err: io.Discard}, so); err == nil || so.Run.Spec.FewshotFile != flagSplit {
		t.Fatalf("err %v, fewshot file %q: want the resume refusal and the flag's %s", err, so.Run.Spec.FewshotFile, flagSplit)
	}
}

// TestFewshotAnyFlag (issue 36 item 4): --fewshot-any reaches the plan spec
// on run and on sweep (where the command line wins over fewshot_any).
func TestFewshotAnyFlag(t *testing.T) {
	var got *RunOptions
	cmd := NewCmdRun(&Factory{Out: io.Discard, Err: io.Discard}, func(_ context.Context, o *RunOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--fewshot-file", "train.jsonl", "--fewshot-any", "--config", "mdagents"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !got.Spec.FewshotAny {
		t.Fatalf("--fewshot-any: spec %+v", got.Spec)
	}
	dir := t.TempDir()
	train := filepath.Join(dir, "train.jsonl")
	if err := os.WriteFile(train, []byte(`{"question": "Which drug is first line for a?", "options": {"A": "One", "B": "Two", "C": "Three", "D": "Four"}, "answer_idx": "B", "answer": "Two"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sweep := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(sweep, []byte("arms: [mdagents]\nfewshot_file: "+train+"\nfewshot_any: false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var so *SweepOptions
	scmd := NewCmdSweep(&Factory{Out: io.Discard, Err: io.Discard}, func(_ context.Context, o *SweepOptions) error { so = o; return nil })
	scmd.SetArgs([]string{sweep, "--fewshot-any", "--resume", "somewhere"})
	if err := scmd.Execute(); err != nil {
		t.Fatal(err)
	}
	// runSweep stops at the resume refusal after applying the file and the flags.
	if err := runSweep(context.Background(), &Factory{Out: io.Discard, Err: io.Discard}, so); err == nil || !so.Run.Spec.FewshotAny {
		t.Fatalf("err %v, fewshot_any %v: want the resume refusal and the flag's true over the file's false", err, so.Run.Spec.FewshotAny)
	}
}
