package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/medteam-bench/medteam/suggest"
)

// flagError is the root's flag error function: every flag error is bad
// input, and an unknown flag names the closest flag of the command
// ("--confg" → "did you mean --config?") and where its flags are listed.
func flagError(cmd *cobra.Command, err error) error {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) {
		return usageError{err}
	}
	names := flagNames(cmd)
	typed := ne.GetSpecifiedName()
	if sh := ne.GetSpecifiedShortnames(); sh != "" {
		typed = sh // -config is read as -c -o -n …; the long flag was meant
	}
	msg := err.Error()
	if best, ok := suggest.Closest(typed, names); ok {
		msg += fmt.Sprintf(" (did you mean --%s?)", best)
	}
	return usagef("%s; see '%s --help' for its flags", msg, cmd.CommandPath())
}

// flagNames lists the long flags cmd takes, its inherited ones included.
func flagNames(cmd *cobra.Command) []string {
	var names []string
	add := func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	}
	cmd.LocalFlags().VisitAll(add)
	cmd.InheritedFlags().VisitAll(add)
	return names
}

// commandError checks, before cobra runs anything, that args name a
// command: an unknown command is bad input (exit 2) that lists the
// commands and the closest. Cobra would exit 1 on an unknown top-level
// command and print help with exit 0 on an unknown subcommand of a group
// (medteam slurm nope).
func commandError(root *cobra.Command, args []string) error {
	if len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd) {
		return nil // shell completion: cobra adds its command when it executes
	}
	root.InitDefaultHelpCmd() // as cobra does when it executes (both are idempotent)
	root.InitDefaultCompletionCmd(args...)
	cmd, rest, err := root.Find(args)
	if err == nil && (cmd.Runnable() || !cmd.HasSubCommands()) {
		return nil
	}
	word := firstWord(rest)
	if word == "" || word == "help" {
		return nil
	}
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
			names = append(names, c.Aliases...)
		}
	}
	msg := fmt.Sprintf("unknown command %q for %q", word, cmd.CommandPath())
	if best, ok := suggest.Closest(word, names); ok {
		msg += fmt.Sprintf(" (did you mean %q?)", best)
	}
	return usagef("%s; the commands are %s (see '%s --help')", msg, strings.Join(names, ", "), cmd.CommandPath())
}

// firstWord is the first argument that is not a flag.
func firstWord(args []string) string {
	for _, a := range args {
		if a == "--" {
			return ""
		}
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// argsAreInput makes every command's argument check a usage error (exit
// 2): a missing FILE, an argument a command takes none of.
func argsAreInput(cmd *cobra.Command) {
	if check := cmd.Args; check != nil {
		cmd.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				msg := err.Error()
				if !strings.Contains(msg, c.CommandPath()) {
					msg = c.CommandPath() + ": " + msg
				}
				return usagef("%s; see '%s --help'", msg, c.CommandPath())
			}
			return nil
		}
	}
	for _, sub := range cmd.Commands() {
		argsAreInput(sub)
	}
}
