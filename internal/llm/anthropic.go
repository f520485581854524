package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
)

// officialAnthropic is the public endpoint, used when base_url is empty.
const officialAnthropic = "https://api.anthropic.com"

// anthropicVersion is the Messages API version weft speaks.
const anthropicVersion = "2023-06-01"

type anthropicProvider struct {
	endpoint
}

func newAnthropic(cfg Config, key string) *anthropicProvider {
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = officialAnthropic
	}
	// Only the variable [llm] api_key_env names is read: no profiles,
	// no other environment defaults.
	header := http.Header{}
	header.Set("Anthropic-Version", anthropicVersion)
	if key != "" {
		header.Set("X-Api-Key", key)
	}
	return &anthropicProvider{endpoint: newEndpoint("Anthropic", base, cfg, header)}
}

// The Messages wire format, as much of it as weft sends and reads.
type (
	anRequest struct {
		Model     string      `json:"model"`
		MaxTokens int64       `json:"max_tokens"`
		System    []anBlock   `json:"system,omitempty"`
		Messages  []anMessage `json:"messages"`
		Tools     []anTool    `json:"tools,omitempty"`
	}
	anMessage struct {
		Role    string    `json:"role"`
		Content []anBlock `json:"content"`
	}
	// anBlock is a content block: text, tool_use or tool_result.
	anBlock struct {
		Type      string          `json:"type"`
		Text      *string         `json:"text,omitempty"`
		ID        string          `json:"id,omitempty"`
		Name      string          `json:"name,omitempty"`
		Input     json.RawMessage `json:"input,omitempty"`
		ToolUseID string          `json:"tool_use_id,omitempty"`
		Content   []anBlock       `json:"content,omitempty"`
		IsError   *bool           `json:"is_error,omitempty"`
	}
	anTool struct {
		Name        string         `json:"name"`
		Description string         `json:"description,omitempty"`
		InputSchema map[string]any `json:"input_schema"`
	}
	anResponse struct {
		Content []struct {
			Type  string          `json:"type"`
			Text  string          `json:"text"`
			ID    string          `json:"id"`
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		} `json:"content"`
		StopReason string `json:"stop_reason"`
		Usage      *struct {
			InputTokens              int64 `json:"input_tokens"`
			OutputTokens             int64 `json:"output_tokens"`
			CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
			CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
		} `json:"usage"`
	}
)

func textBlock(s string) anBlock { return anBlock{Type: "text", Text: &s} }

// Complete sends one Messages request.
func (p *anthropicProvider) Complete(ctx context.Context, req Request) (*Response, error) {
	limit := int64(req.MaxTokens)
	if limit <= 0 {
		limit = int64(p.maxTokens)
	}
	in := anRequest{Model: p.model, MaxTokens: limit, Messages: anthropicMessages(req.Messages), Tools: anthropicTools(req.Tools)}
	if req.System != "" {
		in.System = []anBlock{textBlock(req.System)}
	}
	var msg anResponse
	if err := p.post(ctx, "/v1/messages", in, &msg); err != nil {
		return nil, err
	}
	out := &Response{Message: Message{Role: RoleAssistant}, StopReason: msg.StopReason, UsageReported: msg.Usage != nil}
	if u := msg.Usage; u != nil {
		out.Usage = Usage{InputTokens: u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens, OutputTokens: u.OutputTokens}
	}
	var text []string
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			text = append(text, b.Text)
		case "tool_use":
			args := b.Input
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			out.Message.ToolCalls = append(out.Message.ToolCalls, ToolCall{ID: b.ID, Name: b.Name, Args: args})
		}
	}
	out.Message.Content = strings.Join(text, "\n")
	return out, nil
}

// anthropicMessages converts the conversation; consecutive tool results
// become one user message, as the Messages API requires.
func anthropicMessages(msgs []Message) []anMessage {
	var out []anMessage
	var results []anBlock
	flush := func() {
		if len(results) > 0 {
			out = append(out, anMessage{Role: "user", Content: results})
			results = nil
		}
	}
	for _, m := range msgs {
		if m.Role == RoleTool {
			isError := m.IsError
			results = append(results, anBlock{Type: "tool_result", ToolUseID: m.ToolCallID,
				Content: []anBlock{textBlock(m.Content)}, IsError: &isError})
			continue
		}
		flush()
		switch m.Role {
		case RoleUser:
			out = append(out, anMessage{Role: "user", Content: []anBlock{textBlock(m.Content)}})
		case RoleAssistant:
			out = append(out, anthropicAssistant(m))
		}
	}
	flush()
	return out
}

func anthropicAssistant(m Message) anMessage {
	var blocks []anBlock
	if m.Content != "" {
		blocks = append(blocks, textBlock(m.Content))
	}
	for _, tc := range m.ToolCalls {
		input := json.RawMessage("{}")
		if json.Valid(tc.Args) && strings.HasPrefix(strings.TrimSpace(string(tc.Args)), "{") {
			input = tc.Args
		}
		blocks = append(blocks, anBlock{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: input})
	}
	if len(blocks) == 0 {
		blocks = append(blocks, textBlock("(no reply)"))
	}
	return anMessage{Role: "assistant", Content: blocks}
}

func anthropicTools(tools []Tool) []anTool {
	var out []anTool
	for _, t := range tools {
		schema := objectSchema(t.Schema)
		schema["type"] = "object" // the Messages API takes object schemas only
		out = append(out, anTool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	return out
}
