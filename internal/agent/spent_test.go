package agent_test

import (
	"context"
	"math"
	"testing"

	"github.com/weft-dev/weft/internal/agent"
	"github.com/weft-dev/weft/internal/llm/llmtest"
)

// Spent hears every priced request with the task's sender, and the sum is
// the run's total.
func TestSpentHearsEveryPricedRequest(t *testing.T) {
	var senders []string
	var sum float64
	s := setup{wire: llmtest.OpenAI, limits: limits(nil), price: agent.Price{Input: 1, Output: 2},
		spent: func(sender string, usd float64) { senders = append(senders, sender); sum += usd }}
	a, _ := s.start(t, newFakeTools(),
		llmtest.Reply{Calls: []llmtest.Call{{Name: "fake__echo", Args: `{"text":"hi"}`}}, Usage: &llmtest.Usage{Input: 100, Output: 20}},
		llmtest.Reply{Text: "done", Usage: &llmtest.Usage{Input: 150, Output: 10}},
	)
	res, err := a.Run(context.Background(), agent.Task{Text: "echo hi", Sender: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	want := (100*1 + 20*2 + 150*1 + 10*2) / 1e6
	if len(senders) != 2 || senders[0] != "alice" || senders[1] != "alice" || math.Abs(sum-want) > 1e-12 || math.Abs(res.Totals.USD-sum) > 1e-12 {
		t.Errorf("Spent heard %v summing %g; run total %g; want alice twice, %g", senders, sum, res.Totals.USD, want)
	}
}
