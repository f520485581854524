package delegate

import (
	"encoding/json"
	"fmt"
)

// Kinds of progress events.
const (
	KindToolUse  = "tool_use" // the delegate calls a tool
	KindText     = "text"     // the delegate says something
	KindResult   = "result"   // the delegate finished
	KindFallback = "fallback" // a delegate failed and the next one starts
)

// Event is one step of a delegation, relayed as it happens.
type Event struct {
	Delegate string `json:"delegate"` // claude or agent
	Kind     string `json:"kind"`
	Tool     string `json:"tool,omitempty"`
	Text     string `json:"text,omitempty"`
}

// String is the event as one compact line.
func (e Event) String() string {
	switch e.Kind {
	case KindToolUse:
		return fmt.Sprintf("[%s] → %s %s", e.Delegate, e.Tool, clip(e.Text, 160))
	case KindFallback:
		return fmt.Sprintf("[%s] failed, falling back: %s", e.Delegate, clip(e.Text, 200))
	default:
		return fmt.Sprintf("[%s] %s: %s", e.Delegate, e.Kind, clip(oneLine(e.Text), 160))
	}
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// streamLine is the part of a Claude Code stream-json line weft reads.
type streamLine struct {
	Type    string `json:"type"`
	Subtype string `json:"subtype"`
	Message *struct {
		Content []struct {
			Type  string          `json:"type"`
			Text  string          `json:"text"`
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		} `json:"content"`
	} `json:"message"`
	IsError  bool     `json:"is_error"`
	Result   string   `json:"result"`
	NumTurns int      `json:"num_turns"`
	CostUSD  float64  `json:"total_cost_usd"`
	Errors   []string `json:"errors"`
}

// parseLine decodes one stream-json line into the events it carries, and
// the final result when it is one.
func parseLine(line []byte) ([]Event, *streamLine, error) {
	var l streamLine
	if err := json.Unmarshal(line, &l); err != nil {
		return nil, nil, err
	}
	if l.Type == "" {
		return nil, nil, fmt.Errorf("a JSON line without a \"type\"")
	}
	switch l.Type {
	case "assistant":
		if l.Message == nil {
			return nil, nil, nil
		}
		var out []Event
		for _, c := range l.Message.Content {
			switch c.Type {
			case "text":
				out = append(out, Event{Delegate: "claude", Kind: KindText, Text: c.Text})
			case "tool_use":
				out = append(out, Event{Delegate: "claude", Kind: KindToolUse, Tool: c.Name, Text: string(c.Input)})
			}
		}
		return out, nil, nil
	case "result":
		text := l.Result
		if l.IsError || text == "" {
			text = l.Subtype // error_max_turns, error_during_execution, …
		}
		return []Event{{Delegate: "claude", Kind: KindResult, Text: text}}, &l, nil
	}
	return nil, nil, nil
}
