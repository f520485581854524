package llm

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// officialOpenAI is the public endpoint, used when base_url is empty.
const officialOpenAI = "https://api.openai.com/v1"

// endpoint is what both providers keep for requests and error messages.
type endpoint struct {
	provider  string
	baseURL   string
	model     string
	keyEnv    string
	maxTokens int
	retries   int
}

// Model names the model requests go to.
func (e *endpoint) Model() string { return e.model }

type openAIProvider struct {
	endpoint
	client openai.Client
	// official is true for api.openai.com, which wants max_completion_tokens;
	// compatible servers (Ollama, llama.cpp, vLLM) know max_tokens.
	official bool
}

func newOpenAI(cfg Config, key string) *openAIProvider {
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = officialOpenAI
	}
	opts := []option.RequestOption{
		option.WithBaseURL(base + "/"),
		option.WithAPIKey(key),
		option.WithMaxRetries(cfg.MaxRetries),
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return &openAIProvider{
		endpoint: endpoint{provider: "OpenAI-compatible LLM", baseURL: base, model: cfg.Model, keyEnv: cfg.APIKeyEnv,
			maxTokens: cfg.MaxTokens, retries: cfg.MaxRetries},
		client:   openai.NewClient(opts...),
		official: base == officialOpenAI,
	}
}

// Complete sends one Chat Completions request.
func (p *openAIProvider) Complete(ctx context.Context, req Request) (*Response, error) {
	params := openai.ChatCompletionNewParams{
		Model:    shared.ChatModel(p.model),
		Messages: openAIMessages(req),
		Tools:    openAITools(req.Tools),
	}
	limit := int64(req.MaxTokens)
	if limit <= 0 {
		limit = int64(p.maxTokens)
	}
	if p.official {
		params.MaxCompletionTokens = openai.Int(limit)
	} else {
		params.MaxTokens = openai.Int(limit)
	}
	resp, err := p.client.Chat.Completions.New(ctx, params)
	if err != nil {
		return nil, p.classify(ctx, err)
	}
	if len(resp.Choices) == 0 {
		return nil, badReply(&p.endpoint, "no choices in the reply")
	}
	choice := resp.Choices[0]
	out := &Response{
		Message:       Message{Role: RoleAssistant, Content: choice.Message.Content},
		StopReason:    choice.FinishReason,
		UsageReported: resp.JSON.Usage.Valid(),
		Usage:         Usage{InputTokens: resp.Usage.PromptTokens, OutputTokens: resp.Usage.CompletionTokens},
	}
	for _, tc := range choice.Message.ToolCalls {
		out.Message.ToolCalls = append(out.Message.ToolCalls, ToolCall{
			ID: tc.ID, Name: tc.Function.Name, Args: argsObject(tc.Function.Arguments),
		})
	}
	return out, nil
}

func (p *openAIProvider) classify(ctx context.Context, err error) error {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		body := apiErr.RawJSON()
		if apiErr.Message != "" {
			body = `{"message":` + quote(apiErr.Message) + `}`
		}
		return classify(ctx, &p.endpoint, apiErr.StatusCode, body, err)
	}
	return classify(ctx, &p.endpoint, 0, "", err)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func openAIMessages(req Request) []openai.ChatCompletionMessageParamUnion {
	var out []openai.ChatCompletionMessageParamUnion
	if req.System != "" {
		out = append(out, openai.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		switch m.Role {
		case RoleUser:
			out = append(out, openai.UserMessage(m.Content))
		case RoleTool:
			out = append(out, openai.ToolMessage(m.Content, m.ToolCallID))
		case RoleAssistant:
			out = append(out, openAIAssistant(m))
		}
	}
	return out
}

func openAIAssistant(m Message) openai.ChatCompletionMessageParamUnion {
	var a openai.ChatCompletionAssistantMessageParam
	if m.Content != "" || len(m.ToolCalls) == 0 {
		a.Content.OfString = openai.String(m.Content)
	}
	for _, tc := range m.ToolCalls {
		a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
				ID:       tc.ID,
				Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: string(tc.Args)},
			},
		})
	}
	return openai.ChatCompletionMessageParamUnion{OfAssistant: &a}
}

func openAITools(tools []Tool) []openai.ChatCompletionToolUnionParam {
	var out []openai.ChatCompletionToolUnionParam
	for _, t := range tools {
		def := shared.FunctionDefinitionParam{Name: t.Name, Parameters: objectSchema(t.Schema)}
		if t.Description != "" {
			def.Description = openai.String(t.Description)
		}
		out = append(out, openai.ChatCompletionFunctionTool(def))
	}
	return out
}
