package delegate

import (
	"errors"
	"fmt"

	"github.com/weft-dev/weft/internal/depth"
)

// DepthEnv carries the delegation depth to every child weft starts; it is
// the same variable the face reads at start-up.
const DepthEnv = depth.Env

// nextDepth returns the depth a delegate gets, refusing at the limit: the
// rule internal/depth applies to forwarded calls too (max 0: the default).
func nextDepth(own, inBand, max int) (int, error) {
	next, err := depth.Next(own, inBand, max)
	var de *depth.Error
	if errors.As(err, &de) {
		return 0, &DepthError{Depth: de.Depth, Max: de.Max}
	}
	return next, err
}

// DepthError refuses a delegation that would go past the depth limit.
type DepthError struct {
	Depth, Max int
}

func (e *DepthError) Error() string {
	return fmt.Sprintf("delegation refused: depth %d reached the limit security.max_delegation_depth = %d (weft → Claude Code → weft loop?); raise it if the nesting is intended", e.Depth, e.Max)
}

// Unwrap makes errors.Is(err, depth.ErrExceeded) true.
func (e *DepthError) Unwrap() error { return depth.ErrExceeded }
