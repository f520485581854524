package delegate

import (
	"fmt"
	"os"
	"strconv"
)

// DepthEnv carries the delegation depth to every child weft starts (SPEC S9).
const DepthEnv = "WEFT_DELEGATION_DEPTH"

// DefaultMaxDepth is max_delegation_depth when the config is silent (S9).
const DefaultMaxDepth = 3

// nextDepth reads this process's delegation depth from DepthEnv (0 when
// unset) and returns the depth a child gets, refusing when that passes max.
// It is the one place the depth rule lives, so it can be shared with the
// in-band check of S9.
func nextDepth(max int) (int, error) {
	if max <= 0 {
		max = DefaultMaxDepth
	}
	depth := 0
	if v := os.Getenv(DepthEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%s=%q is not a depth; unset it or give a whole number", DepthEnv, v)
		}
		depth = n
	}
	if depth+1 > max {
		return 0, &DepthError{Depth: depth, Max: max}
	}
	return depth + 1, nil
}
