package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"
)

// graceDefault is how long units in flight may finish after the first
// interrupt before they are canceled.
const graceDefault = 20 * time.Second

// Main runs the medteam command line with args (without the program name)
// and returns the exit code. The first SIGINT or SIGTERM stops taking new
// questions and gives those in flight graceDefault to finish; a second exits
// at once with exitKilled.
//
// MEDTEAM_CPUPROFILE=FILE writes a CPU profile of the whole command to FILE
// (go tool pprof), for finding where a run spends the harness's CPU.
func Main(args []string) int {
	if path := os.Getenv("MEDTEAM_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil && pprof.StartCPUProfile(f) == nil {
			defer func() { pprof.StopCPUProfile(); f.Close() }()
		} else {
			fmt.Fprintf(os.Stderr, "medteam: MEDTEAM_CPUPROFILE=%s: cannot write a profile there\n", path)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	stop := make(chan struct{})
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	first, again := interruptNotice(args)
	go func() {
		<-sigs
		fmt.Fprint(os.Stderr, first)
		close(stop)
		go func() { time.Sleep(graceDefault); cancel() }()
		<-sigs
		fmt.Fprint(os.Stderr, again)
		os.Exit(int(exitKilled))
	}()
	code := execute(ctx, stop, args, os.Stdout, os.Stderr)
	cancel()
	return int(code)
}

// interruptNotice is what the first and a second interrupt print for the
// command line args: about finishing and resuming for a command that runs
// units into a journal (run, sweep), plainly otherwise; nothing on the first for view, which says
// "stopped" itself when its server has shut down.
func interruptNotice(args []string) (first, again string) {
	cmd := ""
	if len(args) > 0 {
		cmd = args[0]
	}
	switch cmd {
	case "run", "sweep":
		return fmt.Sprintf("\nmedteam: stopping: no new questions; the ones in flight get %s to finish (signal again to exit at once; rerun the same command to resume)\n", graceDefault),
			"medteam: exiting at once; finished questions are in the journal, rerun the same command to resume\n"
	case "view":
		return "\n", "medteam: exiting at once\n"
	}
	return "\nmedteam: stopping (signal again to exit at once)\n", "medteam: exiting at once\n"
}
