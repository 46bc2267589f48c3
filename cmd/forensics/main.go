// Command forensics reads the evidence of a distributed-database incident,
// merges it into one timeline, and names the failure it finds.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"forensics/report"
)

// Exit codes. They are documented in the README; scripts rely on them.
const (
	exitOK       = 0 // the analysis ran, whatever it found
	exitFailed   = 1 // nothing could be analysed, or an operation failed
	exitUsage    = 2 // the command line was wrong
	exitFindings = 3 // --fail-on: a finding at or above the threshold
)

func main() {
	limitMemory()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// limitMemory sets a soft limit on the Go heap, unless GOMEMLIMIT sets
// one: the garbage collector works harder as the heap nears it, so that
// hostile input (a tar.gz of members of 500 MB of zeros, lines of 64 MiB
// on every core) cannot take the machine's memory with garbage not yet
// collected. An ordinary analysis of gigabytes stays far below it.
func limitMemory() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	if os.Getenv("GOGC") != "" {
		debug.SetMemoryLimit(memoryLimit)
		return
	}
	// The first collection waits until the memory the Go runtime holds
	// (the heap, stacks, its own) reaches quietHeap; from then on the
	// collector runs as GOGC=100 would. Most commands end before that: a
	// search that reads a few blocks collected three times from a heap of
	// 4 MB, a tenth of its time on two cores.
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(quietHeap)
	runtime.SetFinalizer(new(gcSentinel), func(*gcSentinel) {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(memoryLimit)
	})
}

// gcSentinel is garbage from the start: its finalizer runs after the first
// collection.
type gcSentinel struct{ _ [64]byte }

// memoryLimit is the Go runtime's soft limit of memory; quietHeap is what
// the first collection waits for.
const (
	memoryLimit = 256 << 20
	quietHeap   = 32 << 20
)

// exitError carries an exit code up to run.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return &exitError{exitUsage, fmt.Errorf(format, args...)}
}

// run executes one command line and returns the process exit code. Only
// main calls os.Exit, so tests call run directly.
func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stdout, flushOut := guardTerminal(stdout)
	defer flushOut()
	stderr, flushErr := guardTerminal(stderr)
	defer flushErr()
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	code := exitFailed
	if errors.As(err, &ee) {
		code = ee.code
		if ee.err == nil {
			return code
		}
	} else if isUsage(err) {
		code = exitUsage
	}
	fmt.Fprintf(stderr, "forensics: %s\n", report.EscapeLines(err.Error(), "  "))
	if code == exitUsage {
		// Point to the help of the command that was given, not the root's.
		path := "forensics"
		if cmd != nil {
			path = cmd.CommandPath()
		}
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", path)
	}
	return code
}

// isUsage recognises cobra's own errors for unknown commands and flags,
// which are not typed.
func isUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "flag needs an argument", "invalid argument", "accepts ", "requires at least", "requires at most"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "forensics",
		Short: "Find the failure in distributed-database incident evidence",
		Long: `forensics reads the evidence of a distributed-database incident — Couchbase
cbcollect_info zips, CockroachDB /debug/requests pages, logs and traces, Vitess
topology snapshots and vtctld logs — merges it into one timeline across nodes
(a SQLite file), and runs rules that name the failure, show the evidence lines,
and say what to do about it.`,
		SilenceUsage:      true,
		SilenceErrors:     true,
		PersistentPreRunE: resolveStores,
		Version:           readBuildInfo().Version,
	}
	root.SetVersionTemplate(readBuildInfo().String())
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &exitError{exitUsage, err}
	})
	addLibraryFlags(root)
	root.AddCommand(newAnalyzeCmd(), newTimelineCmd(), newFindingsCmd(), newShowCmd(), newRulesCmd(), newTestCmd(), newReportCmd(), newVersionCmd(), newIncidentsCmd(), newExtractCmd(), newPushCmd(), newFleetCmd(), newServeCmd())
	withBashFallbacks(root)
	// The help fits the terminal: the descriptions of flags and commands
	// wrap under their own column. cobra's template functions belong to the
	// process, and one process may run commands side by side, so each root
	// command carries its own width.
	root.Annotations = map[string]string{helpWidth: strconv.Itoa(widthOf(stdout))}
	addTemplateFuncs.Do(func() {
		cobra.AddTemplateFunc("flagUsages", func(c *cobra.Command, fs *pflag.FlagSet) string {
			return fs.FlagUsagesWrapped(helpWidthOf(c))
		})
		cobra.AddTemplateFunc("commandLine", func(c *cobra.Command) string {
			var b strings.Builder
			first := "  " + c.Name() + strings.Repeat(" ", max(c.NamePadding()-len(c.Name()), 0)) + " "
			report.WriteProse(&b, c.Short, first, strings.Repeat(" ", len(first)), helpWidthOf(c))
			return strings.TrimSuffix(strings.TrimPrefix(b.String(), "  "), "\n")
		})
	})
	root.SetUsageTemplate(strings.NewReplacer(
		".LocalFlags.FlagUsages", "flagUsages . .LocalFlags",
		".InheritedFlags.FlagUsages", "flagUsages . .InheritedFlags",
		"{{rpad .Name .NamePadding }} {{.Short}}", "{{commandLine .}}",
	).Replace(root.UsageTemplate()))
	return root
}

// helpWidth is the root command's annotation that holds the width its help
// wraps to (0: no wrapping).
const helpWidth = "forensics.help-width"

var addTemplateFuncs sync.Once

func helpWidthOf(c *cobra.Command) int {
	n, _ := strconv.Atoi(c.Root().Annotations[helpWidth])
	return n
}
