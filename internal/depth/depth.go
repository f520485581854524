// Package depth is weft's one delegation-depth rule. A call or a delegation
// carries how many wefts it has passed through: in-band in a forwarded
// request's _meta (MetaKey), and in the environment of every weft a weft
// starts (Env). The face applies the rule to calls it forwards, delegation to
// the Claude Code it starts; both refuse at the same depth.
package depth

import (
	"errors"
	"math"
	"strconv"

	"github.com/weft-dev/weft/internal/config"
)

// Where the depth travels.
const (
	Env     = "WEFT_DELEGATION_DEPTH" // environment of child wefts
	MetaKey = "weft/delegation-depth" // _meta of forwarded requests
)

// ErrExceeded is wrapped by every *Error.
var ErrExceeded = errors.New("delegation depth exceeded")

// Error refuses a hop from Depth when Depth has reached Max.
type Error struct {
	Depth, Max int
}

func (e *Error) Error() string {
	return "delegation depth " + strconv.Itoa(e.Depth) + " reached the limit security.max_delegation_depth = " + strconv.Itoa(e.Max)
}

// Unwrap makes errors.Is(err, ErrExceeded) true.
func (e *Error) Unwrap() error { return ErrExceeded }

// Next returns the depth one hop deeper than the deeper of own (this weft's,
// from Env) and inBand (the caller's, from MetaKey), or an *Error when that
// depth has reached max. A max of 0 or less means the configuration's
// default, as security.max_delegation_depth = 0 does: there is no "no limit".
func Next(own, inBand, max int) (int, error) {
	if max <= 0 {
		max = config.DefaultMaxDelegationDepth
	}
	d := own
	if inBand > d {
		d = inBand
	}
	if d >= max {
		return 0, &Error{Depth: d, Max: max}
	}
	return d + 1, nil
}

// Parse reads a depth from Env's value; anything but a non-negative integer
// counts as 0.
func Parse(v string) int {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// FromMeta reads the in-band depth of a request's _meta (JSON numbers arrive
// as float64); anything unreadable counts as 0.
func FromMeta(meta map[string]any) int {
	switch v := meta[MetaKey].(type) {
	case float64:
		if v > 0 && v < math.MaxInt32 {
			return int(v)
		}
	case int:
		return max(v, 0)
	case string:
		return Parse(v)
	}
	return 0
}
