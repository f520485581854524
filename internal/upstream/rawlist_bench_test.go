package upstream

import (
	"context"
	"testing"

	"github.com/weft-dev/weft/internal/testutil"
)

// BenchmarkListTools lists the bench's upstream (1,000 tools, one schema,
// over Streamable HTTP in this process) as the raw list does and as
// go-sdk's typed list with rawSchemas did; the upstream's encoding of the
// pages is in both.
//
//	go test -run '^$' -bench ListTools -benchmem ./internal/upstream/
func BenchmarkListTools(b *testing.B) {
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		list func(c *Conn) (int, error)
	}{
		{"raw", func(c *Conn) (int, error) {
			tools, ok, err := c.listToolsRaw(ctx)
			if !ok && err == nil {
				b.Fatal("the raw list declined the bench's tools")
			}
			return len(tools), err
		}},
		{"go-sdk", func(c *Conn) (int, error) {
			tools, err := collect(c.session.Tools(ctx, nil))
			rawSchemas(tools)
			return len(tools), err
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c := dial(b, serveHTTP(b, testutil.NewEchoServer("bench", 1000), nil), Options{})
			for b.Loop() {
				if n, err := bc.list(c); err != nil || n != 1000 {
					b.Fatalf("listed %d tools: %v", n, err)
				}
			}
		})
	}
}
