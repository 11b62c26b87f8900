// Package cmd is superbiz's command line: cobra commands, global flags,
// environment and configuration wiring, and the choice between terminal,
// text and JSON output. It asks internal/registry for the model client and
// the tools, opens the run store and hands them to the use cases; it builds
// no client and no tool itself (docs/ARCHITECTURE.md).
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/registry"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// Execute runs superbiz with the process's arguments, streams and
// environment and exits with the code of docs/SPEC.md#exit-codes; it is all main does.
func Execute() {
	// The process's streams enter the egress door here, once: run wraps
	// them in egress.Writer (IOStreams), and nothing else names them.
	ctx, stop := withSignals(context.Background(), egress.NewWriter(os.Stderr)) //nolint:forbidigo // the door's entry
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)    //nolint:forbidigo // the door's entry
	stop()
	os.Exit(code)
}

// signalCause is the cancellation cause a stop signal gives the context, so
// the exit code can say which signal ended the run.
type signalCause struct{ sig os.Signal }

func (e *signalCause) Error() string { return "received " + e.sig.String() }

// withSignals returns a context cancelled, with a *signalCause, by the
// first stop signal: Ctrl-C (SIGINT), a service manager's stop (SIGTERM) or
// a closed terminal (SIGHUP). Each ends the run CANCELLED, stored before the
// process exits with 128 + the signal's number. A second signal exits at
// once (the run is then left to the store's recovery), so a stuck process
// can still be stopped.
func withSignals(parent context.Context, stderr egress.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			cancel(&signalCause{sig: sig})
		case <-done:
			return
		}
		select {
		case sig := <-sigs:
			_ = stderr.Printf("superbiz: second %s: exiting now\n", sig)
			os.Exit(signalExit(sig))
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// signalExit is the conventional exit code of a process ended by sig.
func signalExit(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return ExitCancelled
}

// cancelExit is the exit code of a cancelled run: 128 + the signal that
// cancelled it (130 SIGINT, 143 SIGTERM, 129 SIGHUP), 130 for any other
// cancellation (the TUI's q or Ctrl-C key).
func cancelExit(ctx context.Context) int {
	var sc *signalCause
	if errors.As(context.Cause(ctx), &sc) {
		return signalExit(sc.sig)
	}
	return ExitCancelled
}

// app is one invocation of the CLI: its streams, its environment and the
// values of the global flags, passed explicitly to every command.
type app struct {
	io     *IOStreams
	getenv func(string) string
	flags  globalFlags
	// workDir is where ./superbiz.toml is looked for; "" is the process's
	// working directory.
	workDir string
}

// globalFlags are the persistent flags of docs/SPEC.md#superbiz-global-flags.
type globalFlags struct {
	configPath string
	dbPath     string
	model      string
	host       string
	url        string
	provider   string
	output     outputFormat
	noTUI      bool
	demo       bool
	version    bool // --version, the root command's own flag
}

// run executes one command line in-process and returns the exit code; tests
// drive the whole CLI through it with their own streams and environment.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	a := &app{
		io:     newIOStreams(stdin, stdout, stderr, getenv),
		getenv: getenv,
		flags:  globalFlags{output: outputText},
	}
	root := a.newRootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	// cobra's own output (help, usage) passes the door line by line: its
	// templates write a line in pieces; a line's held tail is written when
	// the command ends.
	cobraOut, cobraErr := a.io.Out.Stream(), a.io.ErrOut.Stream()
	root.SetOut(cobraOut)
	root.SetErr(cobraErr)

	cmd, err := root.ExecuteContextC(ctx)
	_, _ = cobraOut.Close(), cobraErr.Close() // nothing to report a failed write to
	if err == nil {
		return ExitOK
	}
	code, usage := exitCode(err)
	if code == ExitCancelled || (code == ExitFailed && errors.Is(err, context.Canceled) && ctx.Err() != nil) {
		code = cancelExit(ctx)
	}
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Err != nil {
		_ = a.io.ErrOut.Printf("superbiz: %s\n", egress.Error(storeHint(err)).TrimRight("\n"))
	}
	if usage && cmd != nil {
		_ = a.io.ErrOut.Printf("Usage: %s\nRun '%s --help' for details.\n", cmd.UseLine(), cmd.CommandPath())
	}
	return code
}

// storeHint says what to do about a run store pkg/runstore refused, in the
// CLI's words (pkg/ names no flag): the error of an empty path or of a file
// a newer superbiz migrated ends with its hint. Any other error is err.
func storeHint(err error) error {
	var newer *runstore.NewerError
	switch {
	case errors.Is(err, runstore.ErrNoPath):
		return fmt.Errorf("%w: set --db or SUPERBIZ_DB to a file path", err)
	case errors.As(err, &newer):
		return fmt.Errorf("%w: upgrade superbiz, or point --db at another file", err)
	}
	return err
}

func (a *app) newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "superbiz",
		Short: "Diagnose production incidents from evidence with a local model",
		Long: `superbiz diagnoses a production problem from evidence: one ReAct agent
talks to a model (Ollama, or any OpenAI-compatible server with --provider
openai: vLLM, llama-server, LM Studio, LiteLLM, OpenAI) and reads your
runbooks, logs, read-only databases, metrics, alerts, Kubernetes and Redis
through audited evidence tools ("superbiz tools list" shows them), guided
by diagnosis playbooks (read_skill), then answers with findings that cite
what it checked, or says honestly what is missing.`,
		Example: `  superbiz diagnose --demo
  superbiz diagnose "order-service payment timeouts since 14:00, many 504s"
  superbiz doctor`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// Runnable so that an unknown command reaches Args (a usage error)
		// instead of cobra's silent fallback to help.
		Args: subcommandArgs,
		// Cobra checks flag groups (MarkFlagsMutuallyExclusive) after this
		// hook and returns a plain error; checking them here first makes a
		// conflict a usage error (exit 2 and the usage line).
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if err := cmd.ValidateFlagGroups(); err != nil {
				return &ExitError{Code: ExitUsage, Err: err, Usage: true}
			}
			if a.flags.output == outputWide && !takesWide(cmd.CommandPath()) {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("-o wide is for `superbiz runs` and `runs show` only; %s takes text, markdown or json", cmd.CommandPath()), Usage: true}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if a.flags.version {
				return a.runVersion(cmd.Context(), &versionOptions{globalOptions: a.flags.options(cmd)})
			}
			return cmd.Help()
		},
	}
	root.Flags().BoolVar(&a.flags.version, "version", false, "print the version and exit, the same as the version command")
	root.CompletionOptions.DisableDefaultCmd = true
	root.SuggestionsMinimumDistance = 2
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &ExitError{Code: ExitUsage, Err: err, Usage: true}
	})

	pf := root.PersistentFlags()
	pf.StringVar(&a.flags.configPath, "config", "", "config file (env SUPERBIZ_CONFIG; default ./superbiz.toml, then $XDG_CONFIG_HOME/superbiz/config.toml)")
	pf.StringVar(&a.flags.dbPath, "db", "", "run store file (env SUPERBIZ_DB; default $XDG_DATA_HOME/superbiz/superbiz.db)")
	defs := registry.Defaults()
	def := defs.Model
	pf.StringVar(&a.flags.model, "model", "", "model name (env "+config.EnvModel+"; default "+def.Name+")")
	pf.StringVar(&a.flags.url, "url", "", "model server URL, either provider (sets model.host for ollama, model.url for openai)")
	pf.StringVar(&a.flags.host, "host", "", "Ollama server URL, provider ollama (env "+defs.EnvOf("model.host")+"; default "+def.Host.Redacted()+"; provider openai: --url, model.url or $"+defs.EnvOf("model.url")+")")
	pf.StringVar(&a.flags.provider, "provider", "", "model provider: ollama, or openai for an OpenAI-compatible server (env "+config.EnvProvider+"; default "+def.Provider+")")
	pf.VarP(&a.flags.output, "output", "o", "output format: text, markdown or json (runs, runs show: also wide, every column)")
	pf.BoolVar(&a.flags.noTUI, "no-tui", false, "never draw the terminal UI: progress on stderr, answer on stdout")
	pf.BoolVar(&a.flags.demo, "demo", false, "use the built-in demo workspace (runbooks, logs, orders database)")

	root.AddCommand(
		a.newDiagnoseCmd(nil),
		a.newEvalCmd(nil),
		a.newChatCmd(nil),
		a.newAlertsCmd(nil),
		a.newTimelineCmd(nil),
		a.newDoctorCmd(nil),
		a.newConfigCmd(),
		a.newRunsCmd(nil), a.newReplayCmd(nil), a.newMCPCmd(nil),
		a.newKBCmd(), a.newLogsCmd(), a.newSkillsCmd(nil), a.newToolsCmd(),
		a.newVersionCmd(nil),
		a.newCompletionCmd(nil),
	)
	a.registerCompletions(root)
	root.SetUsageTemplate(globalFlagsPointer(root.UsageTemplate()))
	return root
}

// unknownCommand is the usage error for a word that names no command, with
// cobra's "did you mean" suggestions when there are any.
func unknownCommand(cmd *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, cmd.CommandPath())
	if s := cmd.SuggestionsFor(name); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return usageErrorf("%s", msg)
}

// subcommandArgs is the Args of a command that only groups subcommands (and
// of the root): a word that names no subcommand is a usage error with
// suggestions, instead of cobra's silent fallback to help.
func subcommandArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return unknownCommand(cmd, args[0])
	}
	return nil
}

// exactArgs is cobra.ExactArgs reported as a usage error.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErrorf("%s takes %s, got %d argument(s)", commandName(cmd), what, len(args))
		}
		return nil
	}
}

// noArgs is cobra.NoArgs reported as a usage error.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErrorf("%s takes no arguments, got %q", commandName(cmd), args[0])
	}
	return nil
}

// commandName is the command's path without "superbiz", which the error's
// own "superbiz: " prefix already says ("replay", "runs show").
func commandName(cmd *cobra.Command) string {
	if !cmd.HasParent() {
		return cmd.Name()
	}
	_, rest, _ := strings.Cut(cmd.CommandPath(), " ")
	return rest
}

// globalBlock is the part of cobra's usage template that lists every
// global flag under each subcommand's help.
const globalBlock = `{{if .HasAvailableInheritedFlags}}

Global Flags:
{{.InheritedFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}`

// globalPointer replaces it: one line naming where the global flags are
// described, as gh does, instead of 9 lines repeated under every
// subcommand whether they mean anything there or not (issue 40 #17).
const globalPointer = `{{if .HasAvailableInheritedFlags}}

Global flags (--config, --db, --demo, --model, -o, …): see "superbiz --help".{{end}}`

// globalFlagsPointer is the usage template with globalBlock replaced by
// globalPointer; it panics if cobra's template no longer holds the block
// (a programming error the help goldens would show anyway).
func globalFlagsPointer(template string) string {
	if !strings.Contains(template, globalBlock) {
		panic("cmd: cobra's usage template has no Global Flags block to replace")
	}
	return strings.Replace(template, globalBlock, globalPointer, 1)
}
