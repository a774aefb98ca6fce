// Command medteam is a benchmark harness for multi-agent medical question
// answering. See docs/commands.md for the commands and docs/output.md for
// the output schema.
package main

import (
	"os"

	"github.com/medteam-bench/medteam/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
