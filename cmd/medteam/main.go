// Command medteam is a benchmark harness for multi-agent medical question
// answering. See the README for commands and the output schema.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// graceDefault is how long units in flight may finish after the first
// interrupt before they are canceled.
const graceDefault = 20 * time.Second

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	stop := make(chan struct{})
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		fmt.Fprintf(os.Stderr, "\nmedteam: stopping: no new questions; the ones in flight get %s to finish (signal again to exit at once; rerun the same command to resume)\n", graceDefault)
		close(stop)
		go func() { time.Sleep(graceDefault); cancel() }()
		<-sigs
		fmt.Fprintln(os.Stderr, "medteam: exiting at once; finished questions are in the journal, rerun the same command to resume")
		os.Exit(exitKilled)
	}()
	code := execute(ctx, stop, os.Args[1:], os.Stdout, os.Stderr)
	cancel()
	os.Exit(code)
}
