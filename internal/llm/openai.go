package llm

import (
	"context"
	"net/http"
	"strings"
)

// officialOpenAI is the public endpoint, used when base_url is empty.
const officialOpenAI = "https://api.openai.com/v1"

type openAIProvider struct {
	endpoint
	// official is true for api.openai.com, which wants max_completion_tokens;
	// compatible servers (Ollama, llama.cpp, vLLM) know max_tokens.
	official bool
}

func newOpenAI(cfg Config, key string) *openAIProvider {
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = officialOpenAI
	}
	header := http.Header{}
	if key != "" {
		header.Set("Authorization", "Bearer "+key)
	}
	return &openAIProvider{
		endpoint: newEndpoint("OpenAI-compatible LLM", base, cfg, header),
		official: base == officialOpenAI,
	}
}

// The Chat Completions wire format, as much of it as weft sends and reads.
type (
	oaRequest struct {
		Model               string      `json:"model"`
		Messages            []oaMessage `json:"messages"`
		Tools               []oaTool    `json:"tools,omitempty"`
		MaxTokens           int64       `json:"max_tokens,omitempty"`
		MaxCompletionTokens int64       `json:"max_completion_tokens,omitempty"`
	}
	oaMessage struct {
		Role       string       `json:"role"`
		Content    *string      `json:"content,omitempty"`
		ToolCallID string       `json:"tool_call_id,omitempty"`
		ToolCalls  []oaToolCall `json:"tool_calls,omitempty"`
	}
	oaToolCall struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	oaTool struct {
		Type     string `json:"type"`
		Function struct {
			Name        string         `json:"name"`
			Description string         `json:"description,omitempty"`
			Parameters  map[string]any `json:"parameters"`
		} `json:"function"`
	}
	oaResponse struct {
		Choices []struct {
			Message struct {
				Content   string       `json:"content"`
				ToolCalls []oaToolCall `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage *struct {
			PromptTokens     int64 `json:"prompt_tokens"`
			CompletionTokens int64 `json:"completion_tokens"`
		} `json:"usage"`
	}
)

// Complete sends one Chat Completions request.
func (p *openAIProvider) Complete(ctx context.Context, req Request) (*Response, error) {
	in := oaRequest{Model: p.model, Messages: openAIMessages(req), Tools: openAITools(req.Tools)}
	limit := int64(req.MaxTokens)
	if limit <= 0 {
		limit = int64(p.maxTokens)
	}
	if p.official {
		in.MaxCompletionTokens = limit
	} else {
		in.MaxTokens = limit
	}
	var resp oaResponse
	if err := p.post(ctx, "/chat/completions", in, &resp); err != nil {
		return nil, err
	}
	if len(resp.Choices) == 0 {
		return nil, badReply(&p.endpoint, "no choices in the reply")
	}
	choice := resp.Choices[0]
	out := &Response{
		Message:       Message{Role: RoleAssistant, Content: choice.Message.Content},
		StopReason:    choice.FinishReason,
		UsageReported: resp.Usage != nil,
	}
	if resp.Usage != nil {
		out.Usage = Usage{InputTokens: resp.Usage.PromptTokens, OutputTokens: resp.Usage.CompletionTokens}
	}
	for _, tc := range choice.Message.ToolCalls {
		out.Message.ToolCalls = append(out.Message.ToolCalls, ToolCall{
			ID: tc.ID, Name: tc.Function.Name, Args: argsObject(tc.Function.Arguments),
		})
	}
	return out, nil
}

func openAIMessages(req Request) []oaMessage {
	var out []oaMessage
	if req.System != "" {
		out = append(out, oaMessage{Role: "system", Content: &req.System})
	}
	for _, m := range req.Messages {
		switch m.Role {
		case RoleUser:
			out = append(out, oaMessage{Role: "user", Content: &m.Content})
		case RoleTool:
			out = append(out, oaMessage{Role: "tool", Content: &m.Content, ToolCallID: m.ToolCallID})
		case RoleAssistant:
			out = append(out, openAIAssistant(m))
		}
	}
	return out
}

func openAIAssistant(m Message) oaMessage {
	a := oaMessage{Role: "assistant"}
	if m.Content != "" || len(m.ToolCalls) == 0 {
		a.Content = &m.Content
	}
	for _, tc := range m.ToolCalls {
		call := oaToolCall{ID: tc.ID, Type: "function"}
		call.Function.Name, call.Function.Arguments = tc.Name, string(tc.Args)
		a.ToolCalls = append(a.ToolCalls, call)
	}
	return a
}

func openAITools(tools []Tool) []oaTool {
	var out []oaTool
	for _, t := range tools {
		def := oaTool{Type: "function"}
		def.Function.Name, def.Function.Description, def.Function.Parameters = t.Name, t.Description, objectSchema(t.Schema)
		out = append(out, def)
	}
	return out
}
