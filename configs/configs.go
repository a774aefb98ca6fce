// Package configs holds the configuration files medteam ships inside its
// binary: the red-flag rule sets of seed 003's judge — the default
// redflags.yaml (set "seed003": the seed's literal keyword list) and the
// named alternative redflags-semigran.yaml (set "semigran", developed on
// the Semigran vignettes; medteam run --red-flags semigran). The YAML files
// beside them (sweeps, prices, thresholds) are examples read from disk.
package configs

import (
	_ "embed"
	"slices"
	"sync"

	"github.com/medteam-bench/medteam/triage/redflag"
)

// RedFlagsName is the name the embedded default red-flag file is reported
// under.
const RedFlagsName = "configs/redflags.yaml"

// Names of the embedded red-flag sets (medteam run --red-flags NAME).
const (
	RedFlagsDefault  = "seed003"  // seed 003 §H.1's literal keywords: the default
	RedFlagsSemigran = "semigran" // developed on the Semigran vignettes: in-sample there
)

var (
	//go:embed redflags.yaml
	redFlagsYAML []byte
	//go:embed redflags-semigran.yaml
	redFlagsSemigranYAML []byte
)

// redFlagFiles are the embedded sets by name: the file they are reported
// under and its bytes.
var redFlagFiles = map[string]struct {
	file string
	data []byte
}{
	RedFlagsDefault:  {RedFlagsName, redFlagsYAML},
	RedFlagsSemigran: {"configs/redflags-semigran.yaml", redFlagsSemigranYAML},
}

// RedFlagsYAML returns the embedded default red-flag file.
func RedFlagsYAML() []byte { return append([]byte(nil), redFlagsYAML...) }

var redFlagSets = sync.OnceValue(func() map[string]*redflag.Rules {
	out := map[string]*redflag.Rules{}
	for name, f := range redFlagFiles {
		rs, err := redflag.Parse(f.file, f.data)
		if err != nil {
			panic("the embedded red-flag file does not load: " + err.Error()) // a build-time mistake; TestRedFlagsLoad
		}
		if rs.Name != name {
			panic("the embedded red-flag file " + f.file + " is named " + rs.Name + ", not " + name)
		}
		out[name] = rs
	}
	return out
})

// RedFlags returns the default red-flag rules (set seed003), parsed once.
func RedFlags() *redflag.Rules { return redFlagSets()[RedFlagsDefault] }

// RedFlagSet returns the embedded red-flag set called name; ok is false
// when there is none.
func RedFlagSet(name string) (rs *redflag.Rules, ok bool) {
	rs, ok = redFlagSets()[name]
	return rs, ok
}

// RedFlagSetNames lists the embedded sets' names, sorted.
func RedFlagSetNames() []string {
	var out []string
	for name := range redFlagFiles {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}
