package cli

import (
	"os"
	"strconv"

	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
)

// delegationDepth reads this weft's depth from its environment and hands
// every child it starts the next one (SPEC S9).
func delegationDepth(o *hub.Options) int {
	depth := gateway.ParseDepth(os.Getenv(gateway.DelegationEnv))
	extra := map[string]string{}
	for k, v := range o.Upstream.ExtraEnv {
		extra[k] = v
	}
	extra[gateway.DelegationEnv] = strconv.Itoa(depth + 1)
	o.Upstream.ExtraEnv = extra
	return depth
}
