package delegate

import "fmt"

// DepthEnv carries the delegation depth to every child weft starts;
// it is the same variable the face reads at start-up.
const DepthEnv = "WEFT_DELEGATION_DEPTH"

// DefaultMaxDepth is security.max_delegation_depth when the config is silent.
const DefaultMaxDepth = 3

// nextDepth returns the depth a delegate started at depth gets, refusing
// when depth has reached max, the depth rule applies to forwarded calls too.
func nextDepth(depth, max int) (int, error) {
	if max <= 0 {
		max = DefaultMaxDepth
	}
	if depth >= max {
		return 0, &DepthError{Depth: depth, Max: max}
	}
	return depth + 1, nil
}

// DepthError refuses a delegation that would go past the depth limit.
type DepthError struct {
	Depth, Max int
}

func (e *DepthError) Error() string {
	return fmt.Sprintf("delegation refused: depth %d reached the limit security.max_delegation_depth = %d (weft → Claude Code → weft loop?); raise it if the nesting is intended", e.Depth, e.Max)
}
