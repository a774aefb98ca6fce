package view

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/results"
)

func i64(n int64) *int64 { return &n }

// fixture writes a run directory: questions q1..q3 × arms base, full, with
// calls (texts when transcripts); q2 is where the arms disagree, q3 base
// errs and full abstains. The subject and a prompt carry markup.
func fixture(t *testing.T, name string, transcripts bool) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	q := func(id, arm, pred string, correct, abst bool, errs string) results.QuestionRow {
		return results.QuestionRow{SchemaVersion: results.SchemaVersion, RunID: name, Dataset: "medqa", QuestionID: id, Arm: arm,
			Gold: "A", Predicted: pred, Correct: correct, Abstained: abst, Error: errs, Subject: map[string]string{"q1": "step1", "q2": "<b>step2</b>", "q3": "step1"}[id],
			DecisionRule: "borda", Scores: []float64{3, 1}, Rounds: []string{"A,B", "A,A"}, ProtocolJSON: `{"note":"<script>x</script>"}`}
	}
	rows := []results.QuestionRow{
		q("q1", "base", "A", true, false, ""), q("q1", "full", "A", true, false, ""),
		q("q2", "base", "A", true, false, ""), q("q2", "full", "B", false, false, ""),
		q("q3", "base", "", false, false, "boom"), q("q3", "full", "", false, true, ""),
	}
	if err := results.WriteQuestions(filepath.Join(dir, results.QuestionsFile), rows); err != nil {
		t.Fatal(err)
	}
	var calls []results.CallRow
	for _, r := range rows {
		// Written out of order (seq 2, 0, 1; a second try last) to check the viewer orders them.
		for _, c := range []struct {
			seq, try int32
			phase    string
		}{{2, 0, "discussion"}, {0, 0, "recruitment"}, {1, 0, "prediction"}, {0, 1, "recruitment"}} {
			if r.Arm == "base" && c.phase == "discussion" {
				continue
			}
			cr := results.CallRow{SchemaVersion: results.SchemaVersion, RunID: name, QuestionID: r.QuestionID, Arm: r.Arm, Seq: c.seq, UnitTry: c.try,
				Phase: c.phase, Kind: c.phase, Agent: c.seq - 1, Role: "Cardiologist", PromptTokens: i64(10), CompletionTokens: i64(5),
				LatencyMS: 12, Status: "ok", ParseMethod: "json", ParseNotes: []string{"letter E outside the options"}}
			if transcripts {
				cr.Prompt = "<img src=x onerror=alert(1)> prompt " + r.QuestionID
				cr.Response = "reply " + r.Arm
			}
			calls = append(calls, cr)
		}
	}
	if err := results.WriteCalls(filepath.Join(dir, results.CallsFile), calls); err != nil {
		t.Fatal(err)
	}
	return dir
}

func openData(t *testing.T, dirs ...string) *Data {
	t.Helper()
	var runs []*Run
	for _, d := range dirs {
		r, err := OpenRun(d)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	return NewData(runs)
}

func TestStatusAndDisagree(t *testing.T) {
	for _, tt := range []struct {
		row  results.QuestionRow
		want string
	}{
		{results.QuestionRow{Correct: true}, StatusCorrect},
		{results.QuestionRow{}, StatusWrong},
		{results.QuestionRow{Abstained: true}, StatusAbstained},
		{results.QuestionRow{Error: "x", Abstained: true}, StatusError},
	} {
		if got := status(&tt.row); got != tt.want {
			t.Errorf("status(%+v) = %s, want %s", tt.row, got, tt.want)
		}
	}
	for _, tt := range []struct {
		cells []Cell
		want  bool
	}{
		{[]Cell{{S: "correct", P: "A"}, {S: "correct", P: "A"}}, false},
		{[]Cell{{S: "correct", P: "A"}, {S: "wrong", P: "B"}}, true},
		{[]Cell{{S: "correct", P: "A"}, {S: "abstained"}}, true},
		{[]Cell{{S: "correct", P: "A"}, {S: "error"}, {S: ""}}, false},
		{[]Cell{{S: "abstained"}, {S: "abstained"}}, false},
	} {
		if got := disagree(tt.cells); got != tt.want {
			t.Errorf("disagree(%v) = %v, want %v", tt.cells, got, tt.want)
		}
	}
}

func TestGridFilters(t *testing.T) {
	d := openData(t, fixture(t, "r", true))
	if len(d.Lines) != 3 || len(d.Arms) != 2 || d.Arms[1].Label != "full" {
		t.Fatalf("grid %d lines × %v arms", len(d.Lines), d.Arms)
	}
	if _, err := d.Phases(); err != nil {
		t.Fatal(err)
	}
	ids := func(f Filter) string {
		var s []string
		for _, l := range d.Select(f, 0, 100).Lines {
			s = append(s, l.Q)
		}
		return strings.Join(s, ",")
	}
	for _, tt := range []struct {
		name string
		f    Filter
		want string
	}{
		{"all", Filter{Arm: -1}, "q1,q2,q3"},
		{"correct any arm", Filter{Status: StatusCorrect, Arm: -1}, "q1,q2"},
		{"wrong", Filter{Status: StatusWrong, Arm: -1}, "q2"},
		{"wrong in base", Filter{Status: StatusWrong, Arm: 0}, ""},
		{"abstained", Filter{Status: StatusAbstained, Arm: -1}, "q3"},
		{"error", Filter{Status: StatusError, Arm: -1}, "q3"},
		{"error in full", Filter{Status: StatusError, Arm: 1}, ""},
		{"disagree", Filter{Arm: -1, Disagree: true}, "q2"},
		{"subject", Filter{Arm: -1, Subject: "step1"}, "q1,q3"},
		{"phase discussion (full only)", Filter{Arm: -1, Phase: "discussion"}, "q1,q2,q3"},
		{"phase absent", Filter{Arm: -1, Phase: "monitoring"}, ""},
		{"query", Filter{Arm: -1, Query: "Q2"}, "q2"},
	} {
		if got := ids(tt.f); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
	p := d.Select(Filter{Arm: -1}, 1, 1)
	if p.Total != 3 || p.Offset != 1 || len(p.Lines) != 1 || p.Lines[0].Q != "q2" {
		t.Errorf("page 2 of size 1: %+v", p)
	}
}

func get(t *testing.T, h http.Handler, method, target, host string) (int, string, http.Header) {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	if host != "" {
		req.Host = host
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	b, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(b), rec.Result().Header
}

func TestHandlers(t *testing.T) {
	h := Handler(openData(t, fixture(t, "r", true)))
	code, body, hdr := get(t, h, "GET", "/", "127.0.0.1:1")
	if code != 200 || !strings.Contains(body, `src="static/app.js"`) || !strings.Contains(hdr.Get("Content-Security-Policy"), "default-src 'self'") {
		t.Fatalf("index: %d %s %v", code, body, hdr)
	}
	if code, body, _ := get(t, h, "GET", "/static/app.js", "localhost:1"); code != 200 || !strings.Contains(body, "medteamData") {
		t.Errorf("app.js: %d", code)
	}
	code, body, _ = get(t, h, "GET", "/api/grid?status=wrong&limit=10", "127.0.0.1")
	var page Page
	if err := json.Unmarshal([]byte(body), &page); code != 200 || err != nil || page.Total != 1 || page.Lines[0].Q != "q2" || !page.Lines[0].Disagree {
		t.Errorf("grid status=wrong: %d %s", code, body)
	}
	code, body, _ = get(t, h, "GET", "/api/grid?phase=discussion&arm=1&status=abstained", "127.0.0.1")
	if err := json.Unmarshal([]byte(body), &page); code != 200 || err != nil || page.Total != 1 || page.Lines[0].Q != "q3" {
		t.Errorf("grid phase+arm+status: %d %s", code, body)
	}
	for _, bad := range []string{"/api/grid?status=maybe", "/api/grid?arm=2", "/api/grid?limit=0", "/api/grid?offset=-1"} {
		if code, body, _ := get(t, h, "GET", bad, "127.0.0.1"); code != 400 {
			t.Errorf("%s: %d %s, want 400", bad, code, body)
		}
	}
	code, body, _ = get(t, h, "GET", "/api/question?id=1&arms=1", "127.0.0.1")
	var q Question
	if err := json.Unmarshal([]byte(body), &q); code != 200 || err != nil {
		t.Fatalf("question: %d %s %v", code, body, err)
	}
	if len(q.Arms) != 1 || q.Arms[0].Row.Predicted != "B" || !q.Arms[0].Transcripts {
		t.Fatalf("question arms: %+v", q.Arms)
	}
	var order []string
	for _, c := range q.Arms[0].Calls {
		order = append(order, c.Phase)
		if c.QuestionID != "q2" || c.Arm != "full" {
			t.Errorf("a call of another unit: %+v", c)
		}
	}
	if got := strings.Join(order, ","); got != "recruitment,prediction,discussion,recruitment" {
		t.Errorf("calls in order %s, want try 0 by seq then try 1", got)
	}
	if c := q.Arms[0].Calls[0]; !strings.Contains(c.Prompt, "prompt q2") || c.Response != "reply full" || len(c.ParseNotes) != 1 {
		t.Errorf("call texts: %+v", c)
	}
	if code, _, _ := get(t, h, "GET", "/api/question?id=9", "127.0.0.1"); code != 404 {
		t.Errorf("question 9: %d, want 404", code)
	}
	code, body, _ = get(t, h, "GET", "/api/phases", "127.0.0.1")
	if code != 200 || !strings.Contains(body, `"phases":["discussion","prediction","recruitment"]`) || !strings.Contains(body, `"no_transcripts":[]`) {
		t.Errorf("phases: %d %s", code, body)
	}
}

func TestNoTranscripts(t *testing.T) {
	d := openData(t, fixture(t, "bare", false))
	q, err := d.Question(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Arms) != 2 || q.Arms[0].Transcripts || !q.Arms[0].CallsFile || len(q.Arms[0].Calls) != 3 {
		t.Errorf("arms: %+v", q.Arms)
	}
	if without, err := d.Transcripts(); err != nil || len(without) != 1 || without[0] != "bare" {
		t.Errorf("Transcripts() = %v, %v", without, err)
	}
	if !strings.Contains(string(mustRead(t, "static/app.js")), "without --transcripts") {
		t.Error("the page does not say when transcripts are absent")
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := staticFS.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReadOnlyAndLoopbackHost(t *testing.T) {
	h := Handler(openData(t, fixture(t, "r", false)))
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH"} {
		if code, _, hdr := get(t, h, m, "/api/grid", "127.0.0.1"); code != 405 || hdr.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s: %d", m, code)
		}
	}
	for host, want := range map[string]int{"evil.example:80": 403, "192.168.1.4:8080": 403, "localhost:9": 200, "[::1]:9": 200, "127.0.0.2": 200} {
		if code, _, _ := get(t, h, "GET", "/api/meta", host); code != want {
			t.Errorf("Host %s: %d, want %d", host, code, want)
		}
	}
}

func TestCheckAddr(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"127.0.0.1:0", "127.0.0.1:0"},
		{"localhost:8080", "127.0.0.1:8080"},
		{"[::1]:9000", "[::1]:9000"},
		{"127.1.2.3:", "127.1.2.3:0"},
		{"0.0.0.0:8080", ""},
		{":8080", ""},
		{"192.168.1.10:80", ""},
		{"example.com:80", ""},
		{"[::]:80", ""},
		{"127.0.0.1", ""},
		{"127.0.0.1:99999", ""},
	} {
		got, err := CheckAddr(tt.in)
		if tt.want == "" {
			if err == nil {
				t.Errorf("CheckAddr(%q) = %q, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("CheckAddr(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := CheckAddr("0.0.0.0:1"); err == nil || !strings.Contains(err.Error(), "not a loopback address") {
		t.Errorf("error message: %v", err)
	}
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	if _, err := Listen("0.0.0.0:0"); err == nil {
		t.Error("Listen on every interface succeeded")
	}
}

// TestEscaping: markup in a run's name and in dataset fields reaches the
// page only as text: html/template escapes the name, the JSON API escapes
// <, > and &, and the script never parses data as HTML.
func TestEscaping(t *testing.T) {
	dir := fixture(t, "<img src=x onerror=alert(1)>", true)
	h := Handler(openData(t, dir))
	_, body, _ := get(t, h, "GET", "/", "127.0.0.1")
	if strings.Contains(body, "<img") || !strings.Contains(body, "&lt;img src=x onerror=alert(1)&gt;") {
		t.Errorf("run name not escaped in the page:\n%s", body)
	}
	for _, u := range []string{"/api/grid", "/api/question?id=1", "/api/meta"} {
		_, body, _ := get(t, h, "GET", u, "127.0.0.1")
		if strings.Contains(body, "<") || strings.Contains(body, ">") {
			t.Errorf("%s has a raw < or >: %.300s", u, body)
		}
	}
	js := string(mustRead(t, "static/app.js"))
	for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("} {
		if strings.Contains(js, bad) {
			t.Errorf("app.js uses %s", bad)
		}
	}
}

func TestExport(t *testing.T) {
	d := openData(t, fixture(t, "r", true), fixture(t, "s", false))
	out := t.TempDir()
	n, err := Export(d, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Arms) != 4 || d.Arms[2].Label != "s:base" {
		t.Errorf("arms of two runs: %+v", d.Arms)
	}
	// index.html, app.js, app.css, meta, phases, grid, 3 questions
	if n != 9 {
		t.Errorf("wrote %d files, want 9", n)
	}
	page, _ := os.ReadFile(filepath.Join(out, "index.html"))
	if !strings.Contains(string(page), `data-static="1"`) || !strings.Contains(string(page), `src="static/app.js"`) {
		t.Errorf("index.html: %s", page)
	}
	if _, err := os.Stat(filepath.Join(out, "static", "app.css")); err != nil {
		t.Error(err)
	}
	unwrap := func(name string, v any) {
		b, err := os.ReadFile(filepath.Join(out, "data", name+".js"))
		if err != nil {
			t.Fatal(err)
		}
		s := strings.TrimSpace(string(b))
		prefix := `medteamData("` + name + `",`
		if !strings.HasPrefix(s, prefix) || !strings.HasSuffix(s, ");") {
			t.Fatalf("%s.js: %.100s", name, s)
		}
		if strings.Contains(s, "<") {
			t.Errorf("%s.js has a raw <", name)
		}
		if err := json.Unmarshal([]byte(strings.TrimSuffix(strings.TrimPrefix(s, prefix), ");")), v); err != nil {
			t.Fatalf("%s.js: %v", name, err)
		}
	}
	var grid Page
	unwrap("grid", &grid)
	if grid.Total != 3 || len(grid.Lines) != 3 || len(grid.Lines[0].Phases) == 0 {
		t.Errorf("grid: %+v", grid)
	}
	var q Question
	unwrap("q/2", &q)
	if q.Line.Q != "q3" || len(q.Arms) != 4 || !q.Arms[0].Transcripts || q.Arms[2].Transcripts || len(q.Arms[1].Calls) != 4 {
		t.Errorf("q/2: %+v", q.Line)
	}
	var ph struct {
		NoTranscripts []string `json:"no_transcripts"`
	}
	unwrap("phases", &ph)
	if len(ph.NoTranscripts) != 1 || ph.NoTranscripts[0] != "s" {
		t.Errorf("phases: %+v", ph)
	}
}

func TestOpenRunErrors(t *testing.T) {
	if _, err := OpenRun(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no questions.parquet") {
		t.Errorf("empty dir: %v", err)
	}
	// A run without calls.parquet still shows its grid and says so.
	dir := fixture(t, "r", false)
	os.Remove(filepath.Join(dir, results.CallsFile))
	d := openData(t, dir)
	q, err := d.Question(0, nil)
	if err != nil || q.Arms[0].CallsFile || len(q.Arms[0].Calls) != 0 {
		t.Errorf("no calls.parquet: %+v %v", q, err)
	}
}
