package policy

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
)

// BenchmarkPinsStartSaves is the pins' part of a start of 100 servers of
// 20 tools each, arriving in 13 batches: each batch's tools are filtered
// (pinned afresh) and saved before the next batch arrives.
func BenchmarkPinsStartSaves(b *testing.B) {
	const servers, tools, batch = 100, 20, 8
	ts := make([]*mcp.Tool, tools)
	for i := range ts {
		ts[i] = &mcp.Tool{Name: fmt.Sprintf("tool_%02d", i)}
	}
	hash := func(s, i int) string { return fmt.Sprintf("%064x", s*1000+i) }
	for b.Loop() {
		p, err := OpenPins(filepath.Join(b.TempDir(), PinsFileName), config.PinningStrict, nil)
		if err != nil {
			b.Fatal(err)
		}
		for s := range servers {
			hs := make([]string, tools)
			for i := range hs {
				hs[i] = hash(s, i)
			}
			p.Filter(fmt.Sprintf("server-%03d", s), ts, hs)
			if s%batch == batch-1 || s == servers-1 {
				p.Flush()
			}
		}
	}
}
