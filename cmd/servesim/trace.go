package main

import "github.com/urfave/cli/v2"

func traceCommand() *cli.Command { return &cli.Command{Name: "trace"} }
