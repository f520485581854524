package agent

import (
	"log/slog"

	"github.com/weft-dev/weft/internal/llm"
)

// Price is what a model costs, in USD per million tokens.
type Price struct {
	Input  float64 `json:"input"`
	Output float64 `json:"output"`
}

// usd is the cost of the given token counts.
func (p Price) usd(in, out int64) float64 {
	return (float64(in)*p.Input + float64(out)*p.Output) / 1e6
}

// Cost is what one step spent.
type Cost struct {
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	USD          float64 `json:"usd"`
	// Estimated is true when the provider reported no usage and the tokens
	// were estimated from characters.
	Estimated bool `json:"estimated,omitempty"`
}

// Totals sum the cost of a run, per sender too.
type Totals struct {
	InputTokens  int64              `json:"input_tokens"`
	OutputTokens int64              `json:"output_tokens"`
	USD          float64            `json:"usd"`
	Requests     int                `json:"llm_requests"`
	BySender     map[string]float64 `json:"by_sender,omitempty"`
	// Estimated is true when some tokens were estimated from characters.
	Estimated bool `json:"estimated,omitempty"`
}

// Add folds c, spent by sender, into the totals.
func (t *Totals) Add(sender string, c Cost) {
	t.InputTokens += c.InputTokens
	t.OutputTokens += c.OutputTokens
	t.USD += c.USD
	t.Requests++
	t.Estimated = t.Estimated || c.Estimated
	if t.BySender == nil {
		t.BySender = map[string]float64{}
	}
	t.BySender[sender] += c.USD
}

// Merge adds the totals of another run (a chat session sums its tasks).
func (t *Totals) Merge(o Totals) {
	t.InputTokens += o.InputTokens
	t.OutputTokens += o.OutputTokens
	t.USD += o.USD
	t.Requests += o.Requests
	t.Estimated = t.Estimated || o.Estimated
	for sender, usd := range o.BySender {
		if t.BySender == nil {
			t.BySender = map[string]float64{}
		}
		t.BySender[sender] += usd
	}
}

// charsPerToken is the usual rule of thumb for English text and JSON; it is
// only used when the provider reports no usage.
const charsPerToken = 4

// minOutputEstimate is the reply size assumed before any reply was seen.
const minOutputEstimate = 256

func tokensOf(chars int) int64 { return int64((chars + charsPerToken - 1) / charsPerToken) }

// requestChars counts the characters a request sends: system text,
// messages, tool calls and tool definitions.
func requestChars(req llm.Request) int {
	n := len(req.System)
	for _, m := range req.Messages {
		n += len(m.Content)
		for _, tc := range m.ToolCalls {
			n += len(tc.Name) + len(tc.Args)
		}
	}
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + len(t.Schema)
	}
	return n
}

func replyChars(m llm.Message) int {
	n := len(m.Content)
	for _, tc := range m.ToolCalls {
		n += len(tc.Name) + len(tc.Args)
	}
	return n
}

// meter prices requests and keeps a run's totals.
type meter struct {
	price  Price
	sender string
	log    *slog.Logger
	spent  func(sender string, usd float64) // nil: nobody counts
	totals Totals
	// lastIn and lastChars calibrate the estimate with the provider's own
	// count of the previous request; maxOut is the largest reply so far.
	lastIn    int64
	lastChars int
	maxOut    int64
}

func newMeter(p Price, sender string, log *slog.Logger, spent func(string, float64)) *meter {
	return &meter{price: p, sender: sender, log: log, spent: spent, totals: Totals{BySender: map[string]float64{}}}
}

// estimate is the conservative cost of sending req: its input
// counted from characters, or from the previous request's reported tokens
// plus what was added, whichever is more; its output as large as the
// largest reply of the run so far (at least minOutputEstimate).
func (m *meter) estimate(req llm.Request) float64 {
	chars := requestChars(req)
	in := tokensOf(chars)
	if m.lastIn > 0 {
		in = max(in, m.lastIn+tokensOf(max(chars-m.lastChars, 0)))
	}
	return m.price.usd(in, max(m.maxOut, minOutputEstimate))
}

// remaining is what is left of budget.
func (m *meter) remaining(budget float64) float64 { return budget - m.totals.USD }

// charge prices one answered request, logs it and adds it to the totals.
func (m *meter) charge(step int, req llm.Request, resp *llm.Response) Cost {
	chars := requestChars(req)
	c := Cost{InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens}
	if !resp.UsageReported {
		c.InputTokens, c.OutputTokens, c.Estimated = tokensOf(chars), tokensOf(replyChars(resp.Message)), true
	} else {
		m.lastIn, m.lastChars = c.InputTokens, chars
	}
	m.maxOut = max(m.maxOut, c.OutputTokens)
	c.USD = m.price.usd(c.InputTokens, c.OutputTokens)
	m.totals.Add(m.sender, c)
	if m.spent != nil {
		m.spent(m.sender, c.USD)
	}
	m.log.Info("agent step cost", "sender_id", m.sender, "step", step, "input_tokens", c.InputTokens,
		"output_tokens", c.OutputTokens, "usd", c.USD, "estimated", c.Estimated, "run_usd", m.totals.USD)
	return c
}
