// Package llm is weft's provider-neutral view of a chat model with tool
// calling. Two wire formats sit behind it: OpenAI-compatible Chat
// Completions (OpenAI, Ollama, vLLM, llama.cpp server, OpenRouter, …) and
// the Anthropic Messages API. Both are spoken with net/http and
// encoding/json rather than the providers' SDKs: weft sends one request
// shape and reads one reply shape of each, and the two SDKs were 70 % of
// weft's binary and 40 % of an idle weft's resident memory, which every
// weft process paid at start (docs/guides/performance.md, "Memory").
package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
)

// Provider names accepted in [llm] provider.
const (
	ProviderOpenAI    = "openai"
	ProviderAnthropic = "anthropic"
)

// DefaultMaxTokens bounds each reply when the config does not say.
const DefaultMaxTokens = 4096

// DefaultMaxRetries is how many times a request is retried after a 408,
// 409, 429, 5xx or a connection error (with backoff; Retry-After honoured).
const DefaultMaxRetries = 2

// Role is who speaks a message.
type Role string

// Message roles.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool" // a tool's result, answering one ToolCall
)

// Message is one turn of a conversation.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content,omitempty"`
	// ToolCalls are the calls an assistant message asks for.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID is the call a tool message answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// IsError marks a tool message whose call failed.
	IsError bool `json:"is_error,omitempty"`
}

// ToolCall is one call the model asks for.
type ToolCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"` // a JSON object (may be invalid JSON from a weak model)
}

// Tool is a function the model may call.
type Tool struct {
	Name        string
	Description string
	Schema      json.RawMessage // JSON Schema of the arguments (an object schema)
}

// Usage is what one request cost in tokens, as the provider reported it.
type Usage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

// Request is one call to the model.
type Request struct {
	System    string
	Messages  []Message
	Tools     []Tool
	MaxTokens int // 0: the provider's configured default
}

// Response is the model's reply.
type Response struct {
	Message Message // role assistant: text and/or tool calls
	Usage   Usage
	// UsageReported is false when the provider said nothing about tokens;
	// the caller then estimates.
	UsageReported bool
	StopReason    string
}

// Provider is a chat model with tool calling. Implementations are safe for
// concurrent use.
type Provider interface {
	// Complete sends one request and returns the reply. Errors are *Error,
	// or the context's error when ctx ends first.
	Complete(ctx context.Context, req Request) (*Response, error)
	// Model names the model requests go to.
	Model() string
}

// Config selects and sets up a provider.
type Config struct {
	Provider  string // openai (default) or anthropic
	Model     string
	BaseURL   string // empty: the provider's public endpoint
	APIKeyEnv string // empty: OPENAI_API_KEY or ANTHROPIC_API_KEY
	MaxTokens int    // 0: DefaultMaxTokens
	// MaxRetries is the number of retries after a retryable failure; a
	// negative value means none, 0 means DefaultMaxRetries.
	MaxRetries int
	HTTPClient *http.Client // nil: http.DefaultClient
}

// New builds the provider cfg names. The API key is read from the
// environment variable cfg.APIKeyEnv now; a missing key is only an error
// for Anthropic's own endpoint (local OpenAI-compatible servers need none).
func New(cfg Config) (Provider, error) {
	if cfg.Model == "" {
		return nil, fmt.Errorf("no model configured: set [llm] model in weft.toml (for example model = \"llama3.2\" for Ollama)")
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = DefaultMaxRetries
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	switch strings.ToLower(cfg.Provider) {
	case "", ProviderOpenAI:
		cfg.Provider = ProviderOpenAI
		if cfg.APIKeyEnv == "" {
			cfg.APIKeyEnv = "OPENAI_API_KEY"
		}
		return newOpenAI(cfg, os.Getenv(cfg.APIKeyEnv)), nil
	case ProviderAnthropic:
		cfg.Provider = ProviderAnthropic
		if cfg.APIKeyEnv == "" {
			cfg.APIKeyEnv = "ANTHROPIC_API_KEY"
		}
		key := os.Getenv(cfg.APIKeyEnv)
		if key == "" && cfg.BaseURL == "" {
			return nil, fmt.Errorf("no Anthropic API key: set $%s (or name another variable in [llm] api_key_env)", cfg.APIKeyEnv)
		}
		return newAnthropic(cfg, key), nil
	}
	return nil, fmt.Errorf("[llm] provider %q is not known: use %q or %q", cfg.Provider, ProviderOpenAI, ProviderAnthropic)
}

// objectSchema returns schema decoded as a JSON object, or an empty object
// schema when it is missing or not an object.
func objectSchema(schema json.RawMessage) map[string]any {
	var m map[string]any
	if len(schema) > 0 && json.Unmarshal(schema, &m) == nil && m != nil {
		if _, ok := m["type"]; !ok {
			m["type"] = "object"
		}
		return m
	}
	return map[string]any{"type": "object", "properties": map[string]any{}}
}

// argsObject returns raw when it holds a JSON object, else "{}".
func argsObject(raw string) json.RawMessage {
	s := strings.TrimSpace(raw)
	if s == "" {
		return json.RawMessage("{}")
	}
	return json.RawMessage(s)
}
