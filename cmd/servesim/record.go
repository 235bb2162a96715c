package main

import "github.com/urfave/cli/v2"

func recordCommand() *cli.Command { return &cli.Command{Name: "record"} }
