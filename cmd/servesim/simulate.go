package main

import "github.com/urfave/cli/v2"

func simulateCommand() *cli.Command { return &cli.Command{Name: "simulate"} }
