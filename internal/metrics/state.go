package metrics

import (
	"cmp"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/weft-dev/weft/internal/hub"
)

// Descriptions of what is read from the hub at scrape time.
var (
	statusDesc = prometheus.NewDesc("weft_upstream_status",
		"1 for the status each upstream is in (connecting, active, draining, disconnected), else 0.",
		[]string{"server", "status"}, nil)
	breakerDesc = prometheus.NewDesc("weft_upstream_breaker_state",
		"1 for the state of each upstream's circuit breaker (closed, open, half-open), else 0.",
		[]string{"server", "state"}, nil)
	failuresDesc = prometheus.NewDesc("weft_upstream_consecutive_failures",
		"Consecutive failed calls counted by each upstream's breaker.", []string{"server"}, nil)
	inFlightDesc = prometheus.NewDesc("weft_upstream_in_flight_calls",
		"Calls in flight per upstream.", []string{"server"}, nil)
	toolsDesc = prometheus.NewDesc("weft_catalog_tools",
		"Tools in the catalog; listed ones are in tools/list, the rest reachable by search.", []string{"listed"}, nil)
	promptsDesc   = prometheus.NewDesc("weft_catalog_prompts", "Prompts in the catalog.", nil, nil)
	resourcesDesc = prometheus.NewDesc("weft_catalog_resources", "Resources and resource templates in the catalog.", nil, nil)
	sessionsDesc  = prometheus.NewDesc("weft_client_sessions", "Client sessions connected, by face and agent.", []string{"face", "agent"}, nil)
	userInstDesc  = prometheus.NewDesc("weft_upstream_user_instances",
		"Live per-user instances of each per-user upstream.", []string{"server"}, nil)
)

var (
	allStatuses = []hub.Status{hub.StatusConnecting, hub.StatusActive, hub.StatusDraining, hub.StatusDisconnected}
	allBreakers = []hub.BreakerState{hub.BreakerClosed, hub.BreakerOpen, hub.BreakerHalfOpen}
)

// stateCollector reads gauges from the hub when scraped, so that they are
// never stale and cost nothing between scrapes.
type stateCollector struct {
	hub           Source
	sessions      func() map[SessionKey]int
	userInstances func() map[string]int
}

// Describe implements prometheus.Collector.
func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{statusDesc, breakerDesc, failuresDesc, inFlightDesc, toolsDesc, promptsDesc, resourcesDesc, sessionsDesc, userInstDesc} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	if c.hub != nil {
		c.collectServers(ch)
		c.collectCatalog(ch)
	}
	if c.sessions != nil {
		for k, n := range c.sessions() {
			ch <- prometheus.MustNewConstMetric(sessionsDesc, prometheus.GaugeValue, float64(n), k.Face, cmp.Or(k.Agent, DefaultAgent))
		}
	}
	if c.userInstances != nil {
		for server, n := range c.userInstances() {
			ch <- prometheus.MustNewConstMetric(userInstDesc, prometheus.GaugeValue, float64(n), server)
		}
	}
}

func (c *stateCollector) collectServers(ch chan<- prometheus.Metric) {
	for _, s := range c.hub.List() {
		for _, st := range allStatuses {
			ch <- prometheus.MustNewConstMetric(statusDesc, prometheus.GaugeValue, oneIf(s.Status == st), s.Name, string(st))
		}
		for _, b := range allBreakers {
			ch <- prometheus.MustNewConstMetric(breakerDesc, prometheus.GaugeValue, oneIf(s.Breaker == b), s.Name, string(b))
		}
		ch <- prometheus.MustNewConstMetric(failuresDesc, prometheus.GaugeValue, float64(s.Failures), s.Name)
		ch <- prometheus.MustNewConstMetric(inFlightDesc, prometheus.GaugeValue, float64(s.InFlight), s.Name)
	}
}

func (c *stateCollector) collectCatalog(ch chan<- prometheus.Metric) {
	cat := c.hub.Catalog()
	listed := 0
	for _, t := range cat.Tools {
		if t.Listed {
			listed++
		}
	}
	ch <- prometheus.MustNewConstMetric(toolsDesc, prometheus.GaugeValue, float64(listed), "true")
	ch <- prometheus.MustNewConstMetric(toolsDesc, prometheus.GaugeValue, float64(len(cat.Tools)-listed), "false")
	ch <- prometheus.MustNewConstMetric(promptsDesc, prometheus.GaugeValue, float64(len(cat.Prompts)))
	ch <- prometheus.MustNewConstMetric(resourcesDesc, prometheus.GaugeValue, float64(len(cat.Resources)+len(cat.Templates)))
}

func oneIf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
