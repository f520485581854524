package daemon

import "github.com/weft-dev/weft/internal/metrics"

// defaultCostLabel is the agent label of cost spent by no named agent.
const defaultCostLabel = metrics.DefaultAgent

// costLabel is the agent label cost is counted under: the agent's (or
// sender's) name, "default" when there is none.
func costLabel(name string) string {
	if name == "" {
		return defaultCostLabel
	}
	return name
}

// spent counts cost in USD under the agent (or sender) name: each priced
// request of weft's agent, each Claude Code delegation attempt.
func (o *observability) spent(agent string, usd float64) {
	if o != nil {
		o.metrics.Cost(costLabel(agent), usd)
		o.live.Spent(costLabel(agent), usd)
	}
}
