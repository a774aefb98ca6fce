//go:build unix

// Command peakrss runs a command and reports its peak resident set size.
//
//	peakrss [-max-mb N] -- cmd args...
//
// The command inherits stdin, stdout and stderr (its output streams as it is
// written). When it has exited, peakrss prints to stderr
//
//	peak RSS: N MB
//	wall X s, user Y s, sys Z s
//
// where N is ru_maxrss of the child as reported by wait4 (the largest RSS of
// the child, or of any descendant it waited for), in MB of 2^20 bytes rounded
// up; ru_maxrss is in KiB on Linux and the BSDs and in bytes on macOS.
//
// Exit status: the child's (128+signal when a signal killed it; 127 when it
// could not be started); when the child succeeded but its peak exceeded
// -max-mb, 1.
//
// Like time(1), peakrss does not die of SIGINT or SIGQUIT while the child runs
// (a terminal sends those to the whole process group, so the child receives
// them itself and peakrss can still report); SIGTERM and SIGHUP sent to
// peakrss are forwarded to the child.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	argv, maxMB, ok := parseArgs(args, stderr)
	if !ok {
		return 2
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr

	// Registered before Start, so no signal is lost; handled signals are
	// reset to their default in the child by exec.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)

	start := time.Now()
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "peakrss: %v\n", err)
		return 127
	}
	waitErr := waitForwarding(cmd, sigs)
	wall := time.Since(start)
	return report(cmd.ProcessState, waitErr, wall, maxMB, stderr)
}

// parseArgs reads the flags; ok is false (and the usage or the error has
// been printed) when they do not name a command or the limit is negative.
func parseArgs(args []string, stderr io.Writer) (argv []string, maxMB int64, ok bool) {
	fs := flag.NewFlagSet("peakrss", flag.ContinueOnError)
	fs.SetOutput(stderr)
	limit := fs.Int64("max-mb", 0, "exit 1 when the child's peak RSS exceeds this many MB (0 = no limit)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: peakrss [-max-mb N] -- cmd args...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, 0, false
	}
	if fs.NArg() == 0 || *limit < 0 {
		fs.Usage()
		return nil, 0, false
	}
	return fs.Args(), *limit, true
}

// waitForwarding waits for the started cmd, forwarding SIGTERM and SIGHUP
// from sigs to it and swallowing SIGINT and SIGQUIT.
func waitForwarding(cmd *exec.Cmd, sigs <-chan os.Signal) error {
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				if s == syscall.SIGTERM || s == syscall.SIGHUP {
					_ = cmd.Process.Signal(s)
				}
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	return err
}

// report prints the child's peak RSS and times and returns peakrss's exit
// status (see the package comment).
func report(st *os.ProcessState, waitErr error, wall time.Duration, maxMB int64, stderr io.Writer) int {
	if st == nil { // Wait failed before the child was reaped
		fmt.Fprintf(stderr, "peakrss: %v\n", waitErr)
		return 1
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		fmt.Fprintf(stderr, "peakrss: %v\n", waitErr) // e.g. copying output failed
	}
	ru, ok := st.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		fmt.Fprintln(stderr, "peakrss: no resource usage for the child")
		return 1
	}
	peak := maxrssBytes(ru)
	mb := (peak + (1<<20 - 1)) >> 20
	fmt.Fprintf(stderr, "peak RSS: %d MB\n", mb)
	fmt.Fprintf(stderr, "wall %.2f s, user %.2f s, sys %.2f s\n", wall.Seconds(), st.UserTime().Seconds(), st.SystemTime().Seconds())

	code := exitCode(st)
	if code == 0 && maxMB > 0 && peak > maxMB<<20 {
		fmt.Fprintf(stderr, "peakrss: peak RSS %d MB exceeds the limit of %d MB\n", mb, maxMB)
		return 1
	}
	return code
}

// exitCode is the child's exit status, 128+signal when a signal killed it.
func exitCode(st *os.ProcessState) int {
	code := st.ExitCode()
	if code < 0 { // killed by a signal
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return 1
	}
	return code
}

// maxrssBytes is ru_maxrss in bytes.
func maxrssBytes(ru *syscall.Rusage) int64 {
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) << 10
}
