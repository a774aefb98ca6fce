package cli

import (
	"strings"
	"testing"
)

// TestUnknownWords: an unknown command, subcommand, argument or flag is
// bad input (exit 2) and names the closest command or flag. Before, an
// unknown command exited 1 (medteam slurm nope printed help and exited 0),
// a missing FILE exited 1, and an unknown flag said only "unknown flag".
func TestUnknownWords(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate" for "medteam"; the commands are batches, calls, check`},
		{[]string{"swep", "configs/ablation.yaml"}, `unknown command "swep" for "medteam" (did you mean "sweep"?)`},
		{[]string{"rn", "--parallel", "2"}, `(did you mean "run"?)`},
		{[]string{"slurm", "sumbit"}, `unknown command "sumbit" for "medteam slurm" (did you mean "submit"?); the commands are merge, resubmit, status, submit`},
		{[]string{"run", "frob"}, `unknown command "frob" for "medteam run"; see 'medteam run --help'`},
		{[]string{"sweep"}, "medteam sweep: accepts 1 arg(s), received 0; see 'medteam sweep --help'"},
		{[]string{"run", "--confg", "base"}, "unknown flag: --confg (did you mean --config?); see 'medteam run --help' for its flags"},
		{[]string{"run", "-config", "base"}, "(did you mean --config?)"},
		{[]string{"sweep", "x.yaml", "--dryrun"}, "unknown flag: --dryrun (did you mean --dry-run?)"},
		{[]string{"report", "--frobnicate"}, "unknown flag: --frobnicate; see 'medteam report --help' for its flags"},
		{[]string{"run", "--limit", "many"}, `invalid argument "many" for "--limit" flag`},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("medteam %s: exit %d, stderr %q; want exit %d with %q", strings.Join(tc.args, " "), code, stderr, exitUsage, tc.want)
		}
	}
	for _, args := range [][]string{{"help", "run"}, {"slurm"}, {"--version"}, {"run", "--help"}, {"completion", "bash"}, {"__complete", "sw"}} {
		if code, _, stderr := runCLI(t, args...); code != exitOK {
			t.Errorf("medteam %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
	}
}
