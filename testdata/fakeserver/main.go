// Command fakeserver is a stdio MCP server for weft's tests.
//
// Flags select its name and extra tools; --banner prints a non-JSON line on
// stdout first, as some real servers do.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/testutil"
)

func main() {
	name := flag.String("name", "fake", "server name")
	extra := flag.String("extra-tool", "", "name of an extra echo tool")
	n := flag.Int("tools", 0, "number of extra numbered tools")
	banner := flag.Bool("banner", false, "print a non-JSON banner on stdout first")
	dumpEnv := flag.Bool("dump-env", false, "print the whole environment on stdout first, as a careless server would")
	flag.Parse()
	if *banner {
		fmt.Println("Starting fake MCP server v1.0 ...")
	}
	if *dumpEnv {
		for _, kv := range os.Environ() {
			fmt.Println(kv)
		}
	}
	if env := os.Getenv("FAKESERVER_PRINT_ENV"); env != "" {
		fmt.Fprintf(os.Stderr, "%s=%s\n", env, os.Getenv(env))
	}
	s := testutil.NewServer(testutil.ServerOptions{Name: *name, ExtraTool: *extra, NumTools: *n})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
