package view

import (
	"fmt"
	"html/template"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/medteam-bench/medteam/results"
)

// Entry is one run directory found in a folder of runs.
type Entry struct {
	Name      string
	Dir       string
	Status    string   // the manifest's status, or why there is none
	Questions int      // questions of the plan (the manifest's datasets); -1 unknown
	Arms      []string // the arms' labels (the manifest's)
	Viewable  bool     // it has questions.parquet
	Note      string   // what to do when it is not viewable
}

// ListRuns lists the run directories directly inside dir (those holding
// questions.parquet, a manifest or a journal), by name. It is what `medteam
// view FOLDER` shows when FOLDER is not itself a run.
func ListRuns(dir string) ([]Entry, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, de := range des {
		if !de.IsDir() {
			continue
		}
		sub := filepath.Join(dir, de.Name())
		if e, ok := entryOf(sub); ok {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// entryOf describes sub if it is a run directory.
func entryOf(sub string) (Entry, bool) {
	has := func(name string) bool { _, err := os.Stat(filepath.Join(sub, name)); return err == nil }
	e := Entry{Name: filepath.Base(sub), Dir: sub, Questions: -1, Viewable: has(results.QuestionsFile)}
	if !e.Viewable && !has(results.ManifestFile) && !has("journal.db") {
		return e, false
	}
	m, err := results.ReadManifest(filepath.Join(sub, results.ManifestFile))
	switch {
	case err == nil:
		e.Status = m.Status.String()
		e.Questions = 0
		for _, d := range m.Datasets {
			e.Questions += d.Questions
		}
		for _, a := range m.Arms {
			e.Arms = append(e.Arms, a.Label)
		}
	case has(results.ManifestFile):
		e.Status = "manifest unreadable: " + err.Error()
	default:
		e.Status = "no manifest yet (running, or stopped before its first export)"
	}
	if !e.Viewable {
		e.Note = fmt.Sprintf("no %s yet: 'medteam export %s' writes it from the journal", results.QuestionsFile, sub)
	}
	return e, true
}

var listTmpl = template.Must(template.New("list").Funcs(template.FuncMap{"join": joinArms}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
<title>{{.Folder}} — medteam view</title><link rel="icon" href="data:,"><link rel="stylesheet" href="static/app.css"></head>
<body><header><h1>medteam view</h1><p>runs in <span class="run">{{.Folder}}</span></p></header>
<main><table id="runs-list"><thead><tr><th>run</th><th>status</th><th>questions</th><th>arms</th></tr></thead><tbody>
{{range .Entries}}<tr data-run="{{.Name}}"><td class="qid">{{if .Viewable}}<a href="runs/{{.Name}}/">{{.Name}}</a>{{else}}{{.Name}}{{end}}</td>
<td>{{.Status}}{{if .Note}}<br><span class="note">{{.Note}}</span>{{end}}</td>
<td class="num">{{if ge .Questions 0}}{{.Questions}}{{else}}–{{end}}</td><td>{{join .Arms}}</td></tr>
{{end}}</tbody></table></main></body></html>
`))

// Catalog serves a folder of runs: a list of them at / with a link to
// each, and each run's viewer under /runs/NAME/ (opened on first visit).
type Catalog struct {
	Folder  string
	Entries []Entry
	Open    func(dir string) (*Data, error)

	mu       sync.Mutex
	handlers map[string]http.Handler
}

// Handler serves the catalog (read-only, loopback only, as Handler).
func (c *Catalog) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/static/", staticHandler())
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if err := listTmpl.Execute(w, c); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
	mux.HandleFunc("/runs/{name}/", func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("name")
		h, err := c.run(name)
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		http.StripPrefix("/runs/"+name, h).ServeHTTP(w, r)
	})
	return guard(mux)
}

// run is the viewer of the run named name, opened once.
func (c *Catalog) run(name string) (http.Handler, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h, ok := c.handlers[name]; ok {
		return h, nil
	}
	for _, e := range c.Entries {
		if e.Name != name {
			continue
		}
		if !e.Viewable {
			return nil, fmt.Errorf("%s: %s", name, e.Note)
		}
		d, err := c.Open(e.Dir)
		if err != nil {
			return nil, err
		}
		go func() { _, _ = d.Phases() }()
		if c.handlers == nil {
			c.handlers = map[string]http.Handler{}
		}
		c.handlers[name] = Handler(d)
		return c.handlers[name], nil
	}
	return nil, fmt.Errorf("no run %q in %s", name, c.Folder)
}

// OpenData opens one run directory's viewer data.
func OpenData(dir string) (*Data, error) {
	r, err := OpenRun(dir)
	if err != nil {
		return nil, err
	}
	return NewData([]*Run{r}), nil
}

func joinArms(a []string) string { return strings.Join(a, ", ") }
