package gateway

import (
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestDelegateInBandAndEnvDepth: the deeper of the in-band
// and environment depths counts; forwarding adds one hop; the limit refuses.
func TestDelegateInBandAndEnvDepth(t *testing.T) {
	cases := []struct {
		name    string
		env     int
		meta    mcp.Meta
		want    int // forwarded depth, or -1 for a refusal
		keepKey bool
	}{
		{"fresh call", 0, nil, 1, false},
		{"in-band depth from a client", 0, mcp.Meta{DelegationMetaKey: float64(2), "other": "x"}, 3, true},
		{"env depth wins when deeper", 2, mcp.Meta{DelegationMetaKey: float64(1)}, 3, false},
		{"in-band at the limit", 0, mcp.Meta{DelegationMetaKey: float64(3)}, -1, false},
		{"env at the limit", 3, nil, -1, false},
		{"garbage depth counts as 0", 0, mcp.Meta{DelegationMetaKey: "x"}, 1, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := &Gateway{opts: Options{Delegation: DelegationOptions{Depth: c.env, Max: 3}}}
			out, err := g.delegate(c.meta)
			if c.want < 0 {
				if !errors.Is(err, ErrDelegationDepth) {
					t.Fatalf("err = %v, want ErrDelegationDepth", err)
				}
				return
			}
			if err != nil || out[DelegationMetaKey] != c.want {
				t.Fatalf("forwarded meta %v, err %v; want depth %d", out, err, c.want)
			}
			if c.keepKey && out["other"] != "x" {
				t.Fatalf("other meta lost: %v", out)
			}
		})
	}
}
