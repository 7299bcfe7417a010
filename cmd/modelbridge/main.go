// Command modelbridge converts, inspects, runs and compares neural-network
// models (ONNX, PyTorch, MXNet, Caffe, TensorFlow Lite, safetensors) through one canonical
// IR.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/modelbridge/modelbridge/internal/interrupt"
	"github.com/modelbridge/modelbridge/internal/panicerr"
	"github.com/modelbridge/modelbridge/pipeline"

	// Every format registers itself with the formats registry.
	_ "github.com/modelbridge/modelbridge/allformats"
)

// Version is the release of this build.
const Version = "0.1.0"

// Exit codes shared by every command.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// exitError carries a specific exit status out of a command.
type exitError struct {
	code int
	err  error
	// oneLine prints the message as other failures are printed (control
	// characters escaped), for an error that is not a usage text of ours
	// but carries names taken from a model.
	oneLine bool
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

func main() {
	// Ctrl-C or SIGTERM removes the temporaries and child processes of
	// the run and exits 130/143, saying which outputs were left unchanged.
	interrupt.Install(os.Stderr)
	os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr))
}

// execute runs the CLI with args and returns the exit status; tests call it
// directly.
func execute(args []string, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	// A mapped input truncated while we read it faults (SIGBUS); Guard
	// makes that the usual one-line error instead of a crash.
	err := panicerr.Guard("", root.Execute)
	if err == nil {
		return exitOK
	}
	if strings.HasPrefix(err.Error(), "unknown command") {
		err = &exitError{code: exitUsage, err: err}
	}
	var ee *exitError
	var ue *pipeline.UsageError
	if !errors.As(err, &ee) && errors.As(err, &ue) {
		err = &exitError{code: exitUsage, err: err}
	}
	if errors.As(err, &ee) {
		if ee.err != nil && ee.err.Error() != "" {
			style := ee.code
			if ee.oneLine {
				style = exitFailure
			}
			printError(root, stderr, ee.err, style)
		}
		return ee.code
	}
	printError(root, stderr, err, exitFailure)
	return exitFailure
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "modelbridge",
		Short: "Convert, inspect, run and compare neural-network models",
		Long: `modelbridge converts models between ONNX, PyTorch, MXNet, Caffe, TensorFlow Lite and
safetensors through one canonical graph with explicit tensor layouts, runs them with a built-in
reference interpreter, and checks that a converted model computes the same
thing as the original.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       Version,
	}
	root.SetVersionTemplate("modelbridge {{.Version}}\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &exitError{code: exitUsage, err: fmt.Errorf("%w%s\nrun '%s --help' for usage", err, flagHint(c, err), c.CommandPath())}
	})
	root.PersistentFlags().BoolP("quiet", "q", false, "no progress bars (they appear only on a terminal, for work over half a second)")
	addDebugFlag(root)
	addMaxMemoryFlag(root)
	root.AddCommand(newGraphCmd(), newLayoutsCmd(), newCompletionCmd(), newOpsCmd(), newExtractCmd())
	root.AddCommand(newInspectCmd(), newConvertCmd(), newRunCmd(), newCheckCmd(), newOptimizeCmd(), newVersionCmd())
	registerFlagCompletions(root)
	return root
}

// exactArgs is cobra.ExactArgs with the usage exit code.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErrorf("%s takes %d argument(s), got %d\nusage: %s", cmd.Name(), n, len(args), cmd.UseLine())
		}
		return nil
	}
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the modelbridge version",
		Example: `  modelbridge version
  modelbridge --version`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(cmd.OutOrStdout(), "modelbridge", Version)
			return nil
		},
	}
}
