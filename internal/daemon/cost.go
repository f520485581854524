package daemon

import (
	"cmp"

	"github.com/weft-dev/weft/internal/metrics"
)

// costLabel is the agent label cost is counted under: the agent's (or
// sender's) name, "default" when there is none.
func costLabel(name string) string { return cmp.Or(name, metrics.DefaultAgent) }

// spent counts cost in USD under the agent (or sender) name: each priced
// request of weft's agent, each Claude Code delegation attempt.
func (o *observability) spent(agent string, usd float64) {
	if o != nil {
		label := costLabel(agent)
		o.metrics.Cost(label, usd)
		o.live.Spent(label, usd)
	}
}
