package main

import (
	"bytes"
	"strings"
	"testing"
)

// ev builds one `go test -json` line.
func ev(action, pkg, test, output string) string {
	var b strings.Builder
	b.WriteString(`{"Action":"` + action + `","Package":"` + pkg + `"`)
	if test != "" {
		b.WriteString(`,"Test":"` + test + `"`)
	}
	if output != "" {
		b.WriteString(`,"Output":` + quote(output))
	}
	b.WriteString("}\n")
	return b.String()
}

func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(s) + `"`
}

func TestSummarize(t *testing.T) {
	const p, q = "example/p", "example/q"
	skipped := ev("run", p, "TestShared", "") +
		ev("output", p, "TestShared", "=== RUN   TestShared\n") +
		ev("output", p, "TestShared", "    main_test.go:26: ../../shared/datasets/medqa/x.jsonl not present\n") +
		ev("output", p, "TestShared", "--- SKIP: TestShared (0.00s)\n") +
		ev("skip", p, "TestShared", "")
	passed := ev("run", p, "TestA", "") + ev("output", p, "TestA", "=== RUN   TestA\n") +
		ev("output", p, "TestA", "    noisy log line\n") + ev("pass", p, "TestA", "") +
		ev("run", p, "TestA/sub", "") + ev("pass", p, "TestA/sub", "")
	pkgOK := ev("output", p, "", "PASS\n") + ev("output", p, "", "ok  \texample/p\t0.1s\n") + ev("pass", p, "", "")
	failing := ev("run", q, "TestB", "") + ev("output", q, "TestB", "    q_test.go:9: want 3, got 4\n") +
		ev("fail", q, "TestB", "") + ev("output", q, "", "FAIL\texample/q\t0.2s\n") + ev("fail", q, "", "")
	for _, tc := range []struct {
		name, in string
		ok       bool
		want     []string
		not      []string
	}{
		{"pass and skip", passed + skipped + pkgOK, true,
			[]string{"ok  \texample/p", "skipped (1):", "example/p TestShared: main_test.go:26: ../../shared/datasets/medqa/x.jsonl not present", "\n2 passed, 0 failed, 1 skipped\n"},
			[]string{"noisy log line", "=== RUN"}},
		{"a failing test shows its output", passed + pkgOK + failing, false,
			[]string{"q_test.go:9: want 3, got 4", "FAIL\texample/q", "2 passed, 1 failed, 0 skipped\n"}, nil},
		{"a build failure", ev("build-output", "example/r", "", "r.go:3:1: syntax error\n") + ev("build-fail", "example/r", "", "") +
			ev("output", "example/r", "", "FAIL\texample/r [build failed]\n") + ev("fail", "example/r", "", ""), false,
			[]string{"r.go:3:1: syntax error", "0 passed, 1 failed, 0 skipped"}, nil},
		{"a package timeout without a test's fail event", passed + ev("output", q, "", "panic: test timed out after 1s\n") + ev("fail", q, "", ""), false,
			[]string{"panic: test timed out", "2 passed, 1 failed, 0 skipped"}, nil},
		{"go's own error, not JSON", "go: unknown flag -rcae\n", false, []string{"go: unknown flag -rcae", "no test event read"}, nil},
		{"nothing at all", "", false, []string{"0 passed, 0 failed, 0 skipped"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			got, err := summarize(strings.NewReader(tc.in), &out)
			if err != nil {
				t.Fatal(err)
			}
			if got.ok() != tc.ok {
				t.Errorf("ok = %v, want %v", got.ok(), tc.ok)
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
			for _, n := range tc.not {
				if strings.Contains(out.String(), n) {
					t.Errorf("output has %q:\n%s", n, out.String())
				}
			}
		})
	}
}
