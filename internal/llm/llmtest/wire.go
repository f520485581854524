package llmtest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// --- OpenAI Chat Completions ---

type oaRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func parseOpenAI(body []byte) (Request, error) {
	var in oaRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return Request{}, err
	}
	out := Request{Model: in.Model, Body: body}
	for _, t := range in.Tools {
		out.Tools = append(out.Tools, t.Function.Name)
	}
	for _, m := range in.Messages {
		if text := contentText(m.Content); text != "" || len(m.ToolCalls) == 0 {
			out.Messages = append(out.Messages, Message{Role: m.Role, Text: text})
		}
		for _, tc := range m.ToolCalls {
			out.Messages = append(out.Messages, Message{Role: "assistant", Text: tc.Function.Name + " " + tc.Function.Arguments})
		}
	}
	return out, nil
}

func encodeOpenAI(req Request, r Reply) []byte {
	type fn struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type call struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function fn     `json:"function"`
	}
	msg := map[string]any{"role": "assistant", "content": nil}
	if r.Text != "" {
		msg["content"] = r.Text
	}
	finish := "stop"
	if len(r.Calls) > 0 {
		var calls []call
		for i, c := range r.Calls {
			calls = append(calls, call{ID: fmt.Sprintf("call_%d_%d", req.Index, i), Type: "function", Function: fn{c.Name, c.args()}})
		}
		msg["tool_calls"] = calls
		finish = "tool_calls"
	}
	out := map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", req.Index), "object": "chat.completion", "created": 1700000000, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
	}
	if r.Usage != nil {
		out["usage"] = map[string]any{"prompt_tokens": r.Usage.Input, "completion_tokens": r.Usage.Output,
			"total_tokens": r.Usage.Input + r.Usage.Output}
	}
	b, _ := json.Marshal(out)
	return b
}

// --- Anthropic Messages ---

type anBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
}

type anRequest struct {
	Model    string          `json:"model"`
	System   json.RawMessage `json:"system"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

func parseAnthropic(body []byte) (Request, error) {
	var in anRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return Request{}, err
	}
	out := Request{Model: in.Model, Body: body}
	for _, t := range in.Tools {
		out.Tools = append(out.Tools, t.Name)
	}
	if s := contentText(in.System); s != "" {
		out.Messages = append(out.Messages, Message{Role: "system", Text: s})
	}
	for _, m := range in.Messages {
		var blocks []anBlock
		if json.Unmarshal(m.Content, &blocks) != nil {
			out.Messages = append(out.Messages, Message{Role: m.Role, Text: contentText(m.Content)})
			continue
		}
		for _, b := range blocks {
			switch b.Type {
			case "text":
				out.Messages = append(out.Messages, Message{Role: m.Role, Text: b.Text})
			case "tool_use":
				out.Messages = append(out.Messages, Message{Role: "assistant", Text: b.Name + " " + string(b.Input)})
			case "tool_result":
				out.Messages = append(out.Messages, Message{Role: "tool", Text: contentText(b.Content)})
			}
		}
	}
	return out, nil
}

func encodeAnthropic(req Request, r Reply) []byte {
	var content []map[string]any
	if r.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": r.Text})
	}
	stop := "end_turn"
	for i, c := range r.Calls {
		content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d_%d", req.Index, i),
			"name": c.Name, "input": json.RawMessage(c.args())})
		stop = "tool_use"
	}
	if content == nil {
		content = []map[string]any{}
	}
	out := map[string]any{
		"id": fmt.Sprintf("msg_%d", req.Index), "type": "message", "role": "assistant", "model": req.Model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
	}
	if r.Usage != nil {
		out["usage"] = map[string]any{"input_tokens": r.Usage.Input, "output_tokens": r.Usage.Output}
	}
	b, _ := json.Marshal(out)
	return b
}

// contentText flattens a content value that is a string or an array of
// text blocks.
func contentText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []anBlock
	if json.Unmarshal(raw, &blocks) != nil {
		return string(raw)
	}
	var parts []string
	for _, b := range blocks {
		if b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}
