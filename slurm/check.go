package slurm

import (
	"fmt"
	"strings"
	"unicode"
)

// Check refuses a Job whose values cannot reach the scripts safely: a line
// break (or any control character) in a value written on a script line
// would end that line and start a shell command, and an #SBATCH directive
// value is read by sbatch up to the first blank and through its own quote
// rules, so it may hold neither blanks nor quotes nor backslashes. The error
// names the flag or value that carries it. Args are written as
// single-quoted shell words, but a template may print {{.Args}} raw (in a
// comment, say), so they may not hold control characters either.
func (j Job) Check() error {
	for _, v := range []struct{ what, val string }{
		{"the run directory (--out, --run-name)", j.RunDir}, {"the job name (from the run directory)", j.Name},
		{"the working directory", j.Workdir}, {"--medteam", j.Medteam},
	} {
		if err := noControl(v.what, v.val); err != nil {
			return err
		}
	}
	for _, a := range j.Args {
		if err := noControl(fmt.Sprintf("the task flag %q", a), a); err != nil {
			return err
		}
	}
	for _, v := range []struct{ what, val string }{
		{"the run directory (--out, --run-name; it is in #SBATCH --output)", j.RunDir}, {"the job name (from the run directory)", j.Name},
	} {
		if err := directiveValue(v.what, v.val); err != nil {
			return err
		}
	}
	for _, o := range []struct {
		flag string
		opts []string
	}{{"--slurm-opt", j.Options}, {"--merge-opt", j.Merge}} {
		for _, v := range o.opts {
			what := fmt.Sprintf("%s %q", o.flag, v)
			if err := noControl(what, v); err != nil {
				return err
			}
			if err := directiveValue(what, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// noControl refuses s when it holds a control character (newline, carriage
// return, NUL, …).
func noControl(what, s string) error {
	if i := strings.IndexFunc(s, unicode.IsControl); i >= 0 {
		return fmt.Errorf("%s holds the control character %q at byte %d: a line break would end its script line and run the rest as a command; remove it", what, s[i:i+1], i)
	}
	return nil
}

// directiveValue refuses s when sbatch would not read it as one #SBATCH
// word: a blank ends the word, quotes and backslashes are sbatch's own
// quoting.
func directiveValue(what, s string) error {
	if i := strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '"' || r == '\'' || r == '\\' }); i >= 0 {
		return fmt.Errorf("%s holds %q at byte %d, which an #SBATCH line cannot carry (sbatch reads a directive up to the first blank and strips quotes); give a value without blanks, quotes or backslashes", what, s[i:i+1], i)
	}
	return nil
}
