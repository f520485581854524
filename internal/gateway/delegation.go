package gateway

import (
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/depth"
)

// Delegation depth travels in-band in a forwarded call's _meta and
// out-of-band in the environment of every child weft starts; the rule is
// internal/depth's.
const (
	DelegationMetaKey = depth.MetaKey
	DelegationEnv     = depth.Env
)

// ErrDelegationDepth is wrapped by the refusal of a call that would go one
// hop too deep.
var ErrDelegationDepth = depth.ErrExceeded

// DelegationOptions say how deep this weft already is and how deep a call
// may go.
type DelegationOptions struct {
	// Depth is this process's own depth, read from DelegationEnv at start-up.
	Depth int
	// Max refuses calls at a depth ≥ Max (0: the default of
	// security.max_delegation_depth).
	Max int
}

// ParseDepth reads a depth from the environment variable's value; anything
// but a non-negative integer counts as 0.
func ParseDepth(v string) int { return depth.Parse(v) }

// delegate computes a forwarded call's depth (the deeper of this process's
// own and the caller's in-band value) and returns the meta to forward, with
// the depth one hop deeper, or a refusal at the limit. The meta returned
// is only read by the call path (the upstream's request copies it): a
// call with no _meta of its own, the common one, shares one made in New.
func (g *Gateway) delegate(meta mcp.Meta) (mcp.Meta, error) {
	if len(meta) == 0 && g.bareForward != nil {
		return g.bareForward, nil
	}
	d := g.opts.Delegation
	next, err := depth.Next(d.Depth, metaDepth(meta), d.Max)
	if err != nil {
		return nil, refusedDepth(err)
	}
	out := make(mcp.Meta, len(meta)+1)
	for k, v := range meta {
		out[k] = v
	}
	out[DelegationMetaKey] = next
	return out, nil
}

// refusedDepth words depth.Next's refusal. Out of delegate: the
// errors.As target escapes to the heap, which no forwarded call should
// pay for.
func refusedDepth(err error) error {
	var de *depth.Error
	if errors.As(err, &de) {
		return fmt.Errorf("%w: this call already passed through %d wefts and security.max_delegation_depth is %d; weft refuses to forward it (is weft reaching itself through another agent?)", ErrDelegationDepth, de.Depth, de.Max)
	}
	return err
}

// metaDepth reads the in-band depth.
func metaDepth(meta mcp.Meta) int { return depth.FromMeta(meta) }
