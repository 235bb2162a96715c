// Command servesim records, simulates and verifies LLM-serving traces.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/servesim/servesim/verify"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signalContext()
	defer stop()
	app := newApp()
	if err := app.RunContext(ctx, os.Args); err != nil {
		fmt.Fprintln(os.Stderr, errorLine(app, err))
		os.Exit(1)
	}
}

// errorLine is how a failed command's error is printed: as it is when it
// already names its command ("verify: …", "trace import: …"), as usage
// errors are printed, else after "servesim:", so that no line reads
// "servesim: verify: …".
func errorLine(app *cli.App, err error) string {
	msg := interruptedText(err)
	for _, name := range commandNames(app.Commands, "") {
		if strings.HasPrefix(msg, name+":") {
			return msg
		}
	}
	return app.Name + ": " + msg
}

// interruptedText is err's message with its closing "context canceled",
// which names no interrupt, said as "interrupted" (once): main cancels the
// context on SIGINT or SIGTERM alone.
func interruptedText(err error) string {
	msg := err.Error()
	head, ok := strings.CutSuffix(msg, context.Canceled.Error())
	if !ok || !errors.Is(err, context.Canceled) {
		return msg
	}
	if strings.Contains(head, "interrupted") {
		return strings.TrimSuffix(head, ": ")
	}
	return head + "interrupted"
}

// commandNames lists cmds and their subcommands as their errors name
// them: "trace", "trace import", ...
func commandNames(cmds []*cli.Command, parent string) []string {
	var names []string
	for _, c := range cmds {
		name := strings.TrimSpace(parent + " " + c.Name)
		names = append(names, name)
		names = append(names, commandNames(c.Subcommands, name)...)
	}
	return names
}

// repeatWindow is how soon after the first signal another is the same
// one delivered again: timeout(1) sends it to the process and then to its
// group.
const repeatWindow = 500 * time.Millisecond

// killEngines ends the engines verify started and has not stopped.
var killEngines = verify.KillEngines

// signalContext ends at the first interrupt or SIGTERM, which asks the
// running verb to stop cleanly (outputs closed or removed, the engine
// stopped). A second one, from repeatWindow on, then ends the process at
// once, for when that clean-up hangs, after killing the engines verify
// started: they run in process groups of their own, which the signal
// does not reach.
func signalContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-sig:
			cancel()
			time.Sleep(repeatWindow) // a repeat meanwhile waits in sig
		case <-ctx.Done():
			signal.Stop(sig)
			return
		}
		select {
		case <-sig: // the first signal's repeat
		default:
		}
		second := <-sig
		killEngines()
		signal.Stop(sig) // raised again, the signal ends the process
		if p, err := os.FindProcess(os.Getpid()); err != nil || p.Signal(second) != nil {
			os.Exit(1)
		}
	}()
	return ctx, cancel
}

func newApp() *cli.App {
	app := &cli.App{
		Name:    "servesim",
		Usage:   "find the cheapest LLM-serving config at an acceptable tail latency",
		Version: version,
		Commands: []*cli.Command{
			traceCommand(),
			simulateCommand(),
			recordCommand(),
			calibrateCommand(),
			sweepCommand(),
			reportCommand(),
			compareCommand(),
			verifyCommand(),
		},
		HideHelpCommand: true,
		Action:          appHelpOrUnknown,
		OnUsageError:    flagUsageError,
	}
	setUsageErrors(app.Commands)
	return app
}

// setUsageErrors makes a flag that cannot be parsed a usage error in every
// command: urfave/cli returns it as a plain error, which exits 1, the
// status of a failed run.
func setUsageErrors(cmds []*cli.Command) {
	for _, c := range cmds {
		c.OnUsageError = flagUsageError
		setUsageErrors(c.Subcommands)
	}
}

func flagUsageError(c *cli.Context, err error, _ bool) error {
	name := c.Command.HelpName // "servesim record proxy"
	return cli.Exit(fmt.Sprintf("%s: %v%s (%s --help lists the flags)", name, err, flagWant(c.Command.Flags, err), name), 2)
}

// flagParseError matches Go's flag package on a value that does not
// parse, which names the flag but not what it wants.
var flagParseError = regexp.MustCompile(`for flag -([^ :]+): parse error$`)

// flagWant is ": want ..." for a parse error of one of flags, what its
// type reads; "" for any other error, which says so already.
func flagWant(flags []cli.Flag, err error) string {
	m := flagParseError.FindStringSubmatch(err.Error())
	if m == nil {
		return ""
	}
	for _, f := range flags {
		if !slices.Contains(f.Names(), m[1]) {
			continue
		}
		switch f.(type) {
		case *cli.DurationFlag:
			return ": want a duration such as 90s or 1m30s"
		case *cli.Float64Flag:
			return ": want a number"
		case *cli.IntFlag, *cli.Int64Flag:
			return ": want an integer"
		case *cli.UintFlag, *cli.Uint64Flag:
			return ": want a non-negative integer"
		}
	}
	return ""
}

// usageErrorf is a usage error, exit status 2: a flag, setting or
// argument refused before any work starts. An error met while doing the
// work exits 1, the status of a failed run.
func usageErrorf(format string, a ...any) error {
	return cli.Exit(fmt.Sprintf(format, a...), 2)
}

// requireFlags is the usage error naming the flags of names left out or
// empty. urfave/cli's own Required check ends in exit status 1.
func requireFlags(c *cli.Context, names ...string) error {
	var missing []string
	for _, n := range names {
		if c.String(n) == "" {
			missing = append(missing, "--"+n)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return cli.Exit(fmt.Sprintf("%s: %s: required", commandName(c), strings.Join(missing, ", ")), 2)
}

// commandName is the running command as errors name it: "record proxy"
// for a subcommand, where Command.FullName gives "proxy" alone.
func commandName(c *cli.Context) string {
	return strings.TrimPrefix(c.Command.HelpName, c.App.Name+" ")
}

// appHelpOrUnknown is servesim's action when no command matched: the help,
// for no argument or "help" (and "help COMMAND"), else a usage error
// naming the unknown command. urfave/cli's own fallback answers "No help
// topic" with exit status 3, compare's status for a regression.
func appHelpOrUnknown(c *cli.Context) error {
	args := c.Args()
	switch {
	case !args.Present():
		return cli.ShowAppHelp(c)
	case args.First() == "help" && args.Len() == 1:
		return cli.ShowAppHelp(c)
	case args.First() == "help" && c.App.Command(args.Get(1)) != nil:
		return cli.ShowCommandHelp(c, args.Get(1))
	case args.First() == "help":
		return unknownCommand("servesim", args.Get(1))
	}
	return unknownCommand("servesim", args.First())
}

// groupHelpOrUnknown is the action of a command that only groups others
// (trace, sweep): its help without an argument, else a usage error naming
// the unknown subcommand (see appHelpOrUnknown).
func groupHelpOrUnknown(c *cli.Context) error {
	if !c.Args().Present() {
		return cli.ShowSubcommandHelp(c)
	}
	return unknownCommand("servesim "+c.Command.Name, c.Args().First())
}

func unknownCommand(parent, name string) error {
	return cli.Exit(fmt.Sprintf("%s: unknown command %q (%s --help lists them)", parent, name, parent), 2)
}
