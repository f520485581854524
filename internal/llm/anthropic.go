package llm

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
)

// officialAnthropic is the public endpoint, used when base_url is empty.
const officialAnthropic = "https://api.anthropic.com"

type anthropicProvider struct {
	endpoint
	client anthropic.Client
}

func newAnthropic(cfg Config, key string) *anthropicProvider {
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = officialAnthropic
	}
	// The SDK's own credential chain (profiles, federation, env) is off:
	// weft reads exactly the variable [llm] api_key_env names.
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(base + "/"),
		option.WithAPIKey(key),
		option.WithMaxRetries(cfg.MaxRetries),
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return &anthropicProvider{
		endpoint: endpoint{provider: "Anthropic", baseURL: base, model: cfg.Model, keyEnv: cfg.APIKeyEnv,
			maxTokens: cfg.MaxTokens, retries: cfg.MaxRetries},
		client: anthropic.NewClient(opts...),
	}
}

// Complete sends one Messages request.
func (p *anthropicProvider) Complete(ctx context.Context, req Request) (*Response, error) {
	limit := int64(req.MaxTokens)
	if limit <= 0 {
		limit = int64(p.maxTokens)
	}
	params := anthropic.MessageNewParams{
		Model:     anthropic.Model(p.model),
		MaxTokens: limit,
		Messages:  anthropicMessages(req.Messages),
		Tools:     anthropicTools(req.Tools),
	}
	if req.System != "" {
		params.System = []anthropic.TextBlockParam{{Text: req.System}}
	}
	msg, err := p.client.Messages.New(ctx, params)
	if err != nil {
		return nil, p.classify(ctx, err)
	}
	out := &Response{
		Message:       Message{Role: RoleAssistant},
		StopReason:    string(msg.StopReason),
		UsageReported: msg.JSON.Usage.Valid(),
		Usage: Usage{
			InputTokens:  msg.Usage.InputTokens + msg.Usage.CacheCreationInputTokens + msg.Usage.CacheReadInputTokens,
			OutputTokens: msg.Usage.OutputTokens,
		},
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

func (p *anthropicProvider) classify(ctx context.Context, err error) error {
	var apiErr *anthropic.Error
	if errors.As(err, &apiErr) {
		status := apiErr.StatusCode
		if status == 0 && apiErr.Response != nil {
			status = apiErr.Response.StatusCode
		}
		return classify(ctx, &p.endpoint, status, apiErr.RawJSON(), err)
	}
	return classify(ctx, &p.endpoint, 0, "", err)
}

// anthropicMessages converts the conversation; consecutive tool results
// become one user message, as the Messages API requires.
func anthropicMessages(msgs []Message) []anthropic.MessageParam {
	var out []anthropic.MessageParam
	var results []anthropic.ContentBlockParamUnion
	flush := func() {
		if len(results) > 0 {
			out = append(out, anthropic.NewUserMessage(results...))
			results = nil
		}
	}
	for _, m := range msgs {
		if m.Role == RoleTool {
			results = append(results, anthropic.NewToolResultBlock(m.ToolCallID, m.Content, m.IsError))
			continue
		}
		flush()
		switch m.Role {
		case RoleUser:
			out = append(out, anthropic.NewUserMessage(anthropic.NewTextBlock(m.Content)))
		case RoleAssistant:
			out = append(out, anthropicAssistant(m))
		}
	}
	flush()
	return out
}

func anthropicAssistant(m Message) anthropic.MessageParam {
	var blocks []anthropic.ContentBlockParamUnion
	if m.Content != "" {
		blocks = append(blocks, anthropic.NewTextBlock(m.Content))
	}
	for _, tc := range m.ToolCalls {
		var input any = json.RawMessage("{}")
		if json.Valid(tc.Args) && strings.HasPrefix(strings.TrimSpace(string(tc.Args)), "{") {
			input = tc.Args
		}
		blocks = append(blocks, anthropic.NewToolUseBlock(tc.ID, input, tc.Name))
	}
	if len(blocks) == 0 {
		blocks = append(blocks, anthropic.NewTextBlock("(no reply)"))
	}
	return anthropic.NewAssistantMessage(blocks...)
}

func anthropicTools(tools []Tool) []anthropic.ToolUnionParam {
	var out []anthropic.ToolUnionParam
	for _, t := range tools {
		schema := objectSchema(t.Schema)
		in := anthropic.ToolInputSchemaParam{Properties: schema["properties"], ExtraFields: map[string]any{}}
		if req, ok := schema["required"].([]any); ok {
			for _, r := range req {
				if s, ok := r.(string); ok {
					in.Required = append(in.Required, s)
				}
			}
		}
		for k, v := range schema {
			if k != "properties" && k != "required" && k != "type" {
				in.ExtraFields[k] = v
			}
		}
		tool := anthropic.ToolParam{Name: t.Name, InputSchema: in}
		if t.Description != "" {
			tool.Description = anthropic.String(t.Description)
		}
		out = append(out, anthropic.ToolUnionParam{OfTool: &tool})
	}
	return out
}
