// Command servesim records, simulates and verifies LLM-serving traces.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := newApp().RunContext(ctx, os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "servesim:", err)
		os.Exit(1)
	}
}

func newApp() *cli.App {
	return &cli.App{
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
	}
}
