package gateway

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Delegation depth travels in-band in a forwarded call's _meta and
// out-of-band in the environment of every child weft starts.
const (
	DelegationMetaKey = "weft/delegation-depth"
	DelegationEnv     = "WEFT_DELEGATION_DEPTH"
)

// ErrDelegationDepth is wrapped by the refusal of a call that would go one
// hop too deep.
var ErrDelegationDepth = errors.New("delegation depth exceeded")

// DelegationOptions say how deep this weft already is and how deep a call
// may go.
type DelegationOptions struct {
	// Depth is this process's own depth, read from DelegationEnv at start-up.
	Depth int
	// Max refuses calls at a depth ≥ Max (0: no limit).
	Max int
}

// ParseDepth reads a depth from the environment variable's value; anything
// but a non-negative integer counts as 0.
func ParseDepth(v string) int {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// delegate computes a forwarded call's depth (the deeper of this process's
// own and the caller's in-band value) and returns the meta to forward, with
// the depth one hop deeper, or a refusal at the limit.
func (g *Gateway) delegate(meta mcp.Meta) (mcp.Meta, error) {
	d := g.opts.Delegation
	depth := max(d.Depth, metaDepth(meta))
	if d.Max > 0 && depth >= d.Max {
		return nil, fmt.Errorf("%w: this call already passed through %d wefts and security.max_delegation_depth is %d; weft refuses to forward it (is weft reaching itself through another agent?)", ErrDelegationDepth, depth, d.Max)
	}
	out := make(mcp.Meta, len(meta)+1)
	for k, v := range meta {
		out[k] = v
	}
	out[DelegationMetaKey] = depth + 1
	return out, nil
}

// metaDepth reads the in-band depth; JSON numbers arrive as float64.
func metaDepth(meta mcp.Meta) int {
	switch v := meta[DelegationMetaKey].(type) {
	case float64:
		if v > 0 && v < math.MaxInt32 {
			return int(v)
		}
	case int:
		return max(v, 0)
	case string:
		return ParseDepth(v)
	}
	return 0
}
