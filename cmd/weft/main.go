// Command weft makes many MCP servers work as one.
package main

import (
	"os"

	"github.com/weft-dev/weft/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
