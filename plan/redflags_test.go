package plan

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/configs"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/runner"
)

// TestRedFlagsFlag: --red-flags reaches the judge arm (its hash in the arm
// description), a broken file is an input error naming the flag, the file
// and the line, and a multiple-choice plan's document does not depend on the
// rules (nor on the file's path).
func TestRedFlagsFlag(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "flags.yaml")
	body := "version: 1\nrules:\n  - name: rash\n    patterns: ['itchy rash']\n    positive: ['an itchy rash']\n    negative: ['a cough']\n"
	if err := os.WriteFile(good, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte(strings.Replace(body, "'itchy rash']", "'itchy (rash']", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	s := defaultSpec()
	s.Configs = []string{"judge", "full"}
	arms, err := s.Arms()
	if err != nil || arms[0].Protocol.Info().RedFlagsSHA256 != configs.RedFlags().SHA256 || arms[1].Protocol.Info().RedFlagsSHA256 != "" {
		t.Fatalf("default: %v", err)
	}
	s.RedFlags = good
	if arms, err = s.Arms(); err != nil || arms[0].Protocol.Info().RedFlagsSHA256 == configs.RedFlags().SHA256 {
		t.Fatalf("--red-flags: %v", err)
	}
	s.RedFlags = bad
	if _, err := s.Arms(); err == nil || !IsInput(err) || !strings.Contains(err.Error(), "--red-flags: "+bad+":3: rule rash, pattern 1") {
		t.Fatalf("bad file: %v", err)
	}
	s.RedFlags = filepath.Join(dir, "missing.yaml")
	if _, err := s.Arms(); err == nil || !strings.Contains(err.Error(), "--red-flags") || !strings.Contains(err.Error(), "seed003, semigran") {
		t.Fatalf("missing file: %v", err)
	}
	// An embedded set by name.
	s.RedFlags = "semigran"
	sg, _ := configs.RedFlagSet("semigran")
	if arms, err = s.Arms(); err != nil || arms[0].Protocol.Info().RedFlagsSHA256 != sg.SHA256 || arms[0].Protocol.Info().RedFlags != "semigran" {
		t.Fatalf("--red-flags semigran: %v", err)
	}
	s.RedFlags = "seed003"
	if arms, err = s.Arms(); err != nil || arms[0].Protocol.Info().RedFlagsSHA256 != configs.RedFlags().SHA256 {
		t.Fatalf("--red-flags seed003: %v", err)
	}
	hashes := map[string]bool{}
	for _, f := range []string{"", good} {
		s.RedFlags = f
		r, err := Resolve(context.Background(), s, simOpener)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(r.Doc), "red_flags") {
			t.Fatalf("multiple-choice plan records red flags:\n%s", r.Doc)
		}
		hashes[r.Hash] = true
	}
	if len(hashes) != 1 {
		t.Fatal("the red-flag file changes a multiple-choice plan")
	}
}

// TestRedFlagsRecordedForTriage: a plan with triage items records the
// judge arm's red-flag hash (so another file is another plan).
func TestRedFlagsRecordedForTriage(t *testing.T) {
	s := defaultSpec()
	s.Configs = []string{"judge", "full"}
	arms, err := s.Arms()
	if err != nil {
		t.Fatal(err)
	}
	r := &Resolved{Spec: s, Arms: arms, Sets: []runner.QuestionSet{{Questions: []qa.Question{{Kind: qa.KindTriage}}}}}
	doc := r.Document()
	if doc.Arms[0].RedFlagsSHA256 != configs.RedFlags().SHA256 || doc.Arms[0].RedFlags != "seed003" || doc.Arms[0].RedFlagsDevelopedOn != "" ||
		doc.Arms[1].RedFlagsSHA256 != "" || doc.Arms[1].RedFlags != "" {
		t.Fatalf("arms %+v", doc.Arms)
	}
	// The alternative set says in the plan (and so the manifest) what it
	// was developed on.
	s.RedFlags = "semigran"
	if r.Arms, err = s.Arms(); err != nil {
		t.Fatal(err)
	}
	doc = r.Document()
	if doc.Arms[0].RedFlags != "semigran" || !strings.Contains(doc.Arms[0].RedFlagsDevelopedOn, "Semigran") {
		t.Fatalf("semigran arm %+v", doc.Arms[0])
	}
}
