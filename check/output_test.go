package check

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func sampleResults() []Result {
	return []Result{
		{Name: "accuracy ci_low >= 0.55", Arm: "full", Where: "medqa · sim/default · full", Pos: "t.yaml:2", Observed: 0.77, Bound: 0.55, Op: ">=", Pass: true, Detail: "0.808 [0.771, 0.84]"},
		{Name: "calls_per_q value <= 10", Arm: "full", Where: "medqa · sim/default · full", Pos: "t.yaml:5", Observed: 17.05, Bound: 10, Op: "<=", Detail: "17.05"},
		{Name: "ece value <= 0.1", Arm: "base", Where: "medqa · sim/default · base", Pos: "t.yaml:8", Observed: math.NaN(), Bound: 0.1, Op: "<=", Detail: "undefined on these rows"},
	}
}

// TestJUnitStructure parses the JUnit output back into the schema's
// structs and checks the required attributes and the counts.
func TestJUnitStructure(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJUnit(&b, sampleResults(), false); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), `<?xml version="1.0" encoding="UTF-8"?>`) {
		t.Errorf("no XML declaration:\n%s", b.String())
	}
	var doc JUnitSuites
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Tests != 3 || doc.Failures != 2 || len(doc.Suites) != 1 {
		t.Fatalf("testsuites: %+v", doc)
	}
	s := doc.Suites[0]
	if s.Name == "" || s.Tests != 3 || s.Failures != 2 || s.Errors != 0 || s.Time == "" || len(s.Cases) != 3 {
		t.Fatalf("testsuite: %+v", s)
	}
	failures := 0
	for _, c := range s.Cases {
		if c.Name == "" || c.Classname == "" || c.Time == "" {
			t.Errorf("testcase without a required attribute: %+v", c)
		}
		if c.Failure != nil {
			failures++
			if c.Failure.Message == "" || c.Failure.Type == "" {
				t.Errorf("failure without message or type: %+v", c.Failure)
			}
		}
	}
	if failures != s.Failures {
		t.Errorf("%d failure elements, failures=%d", failures, s.Failures)
	}
	c := s.Cases[1]
	if c.Classname != "full" || c.Name != "calls_per_q value <= 10 [medqa · sim/default · full]" ||
		c.Failure.Message != "observed 17.05, bound <= 10" || c.Failure.Text != "t.yaml:5: 17.05" {
		t.Errorf("failing case: %+v %+v", c, c.Failure)
	}
	if s.Cases[2].Failure.Message != "observed —, bound <= 0.1" {
		t.Errorf("undefined case: %+v", s.Cases[2].Failure)
	}
}

// TestJUnitSchema validates the JUnit output against testdata/junit.xsd
// with xmllint (Debian package libxml2-utils) when it is installed.
func TestJUnitSchema(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint not installed (apt-get install libxml2-utils): XSD validation skipped")
	}
	for name, rs := range map[string][]Result{"mixed": sampleResults(), "empty": nil, "passing": sampleResults()[:1]} {
		path := filepath.Join(t.TempDir(), name+".xml")
		var b bytes.Buffer
		if err := WriteJUnit(&b, rs, false); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(xmllint, "--noout", "--schema", "testdata/junit.xsd", path).CombinedOutput()
		if err != nil {
			t.Errorf("%s: xmllint: %v\n%s", name, err, out)
		}
	}
}

func TestTableMarkdownJSON(t *testing.T) {
	rs := sampleResults()
	var tb bytes.Buffer
	if err := WriteTable(&tb, rs, false); err != nil {
		t.Fatal(err)
	}
	want := `threshold                where                       observed  bound    result  detail
accuracy ci_low >= 0.55  medqa · sim/default · full  0.77      >= 0.55  PASS    0.808 [0.771, 0.84]
calls_per_q value <= 10  medqa · sim/default · full  17.05     <= 10    FAIL    17.05
ece value <= 0.1         medqa · sim/default · base  —         <= 0.1   FAIL    undefined on these rows
gate FAILED: 2 of 3 checks failed
`
	if tb.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", tb.String(), want)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, rs, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| ❌ | `calls_per_q value <= 10` | medqa · sim/default · full | 17.05 | <= 10 | 17.05 |\n") {
		t.Errorf("markdown:\n%s", md.String())
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, rs, []string{"a note"}, false); err != nil {
		t.Fatal(err)
	}
	var back JSONReport
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Pass || back.Failed != 2 || back.Total != 3 || back.Results[2].Observed != nil || *back.Results[0].Observed != 0.77 || back.Notes[0] != "a note" {
		t.Errorf("json: %s", js.String())
	}
}
