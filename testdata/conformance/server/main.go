// Command server is the stdio MCP server that the official conformance
// suite's server scenarios expect (test_simple_text, test://static-text,
// test_simple_prompt, …). weft's conformance test launches it as an upstream
// with an empty prefix and runs the suite against weft, so that every
// scenario exercises weft's forwarding rather than this fixture.
//
// It speaks only legacy protocol versions: its tools send sampling and
// elicitation requests, which 2026-07-28 sessions forbid.
package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"
)

// Minimal media the suite accepts: a 1x1 PNG and a silent WAV.
const (
	pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	wavBase64 = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

// watchedURI is the resource the subscribe scenarios use; the fixture
// reports it updated right after each subscription.
const watchedURI = "test://watched-resource"

// fixture holds the decoded media.
type fixture struct {
	png, wav []byte
	server   *mcp.Server
	wg       sync.WaitGroup
}

func main() {
	png, err := base64.StdEncoding.DecodeString(pngBase64)
	if err != nil {
		log.Fatalf("decode png: %v", err)
	}
	wav, err := base64.StdEncoding.DecodeString(wavBase64)
	if err != nil {
		log.Fatalf("decode wav: %v", err)
	}
	f := &fixture{png: png, wav: wav}
	f.server = mcp.NewServer(&mcp.Implementation{Name: "weft-conformance-fixture", Version: "1.0.0"}, &mcp.ServerOptions{
		SupportedProtocolVersions: []string{"2025-11-25", "2025-06-18", "2025-03-26"},
		CompletionHandler:         f.complete,
		SubscribeHandler:          f.subscribe,
		UnsubscribeHandler:        func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	f.addTools()
	f.addResources()
	f.addPrompts()
	err = f.server.Run(context.Background(), &mcp.StdioTransport{})
	f.wg.Wait()
	if err != nil && !errors.Is(err, mcp.ErrConnectionClosed) {
		log.Printf("conformance fixture: %v", err)
		os.Exit(1)
	}
}

// emptySchema is the input schema of the tools without arguments.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

func text(s string) *mcp.TextContent { return &mcp.TextContent{Text: s} }

func result(c ...mcp.Content) *mcp.CallToolResult { return &mcp.CallToolResult{Content: c} }

func (f *fixture) tool(name, desc string, schema any, h mcp.ToolHandler) {
	if schema == nil {
		schema = emptySchema
	}
	f.server.AddTool(&mcp.Tool{Name: name, Description: desc, InputSchema: schema}, h)
}

func (f *fixture) addTools() {
	f.tool("test_simple_text", "Returns simple text content", nil, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return result(text("This is a simple text response for testing.")), nil
	})
	f.tool("test_image_content", "Returns image content", nil, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return result(&mcp.ImageContent{Data: f.png, MIMEType: "image/png"}), nil
	})
	f.tool("test_audio_content", "Returns audio content", nil, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return result(&mcp.AudioContent{Data: f.wav, MIMEType: "audio/wav"}), nil
	})
	f.tool("test_embedded_resource", "Returns an embedded resource", nil, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return result(&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
			URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content.",
		}}), nil
	})
	f.tool("test_multiple_content_types", "Returns text, image and resource content", nil, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return result(
			text("Multiple content types test:"),
			&mcp.ImageContent{Data: f.png, MIMEType: "image/png"},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
				URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`,
			}},
		), nil
	})
	f.tool("test_tool_with_logging", "Sends three info log messages while it runs", nil, f.withLogging)
	f.tool("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100", nil, f.withProgress)
	f.tool("test_error_handling", "Always fails", nil, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{text("This tool intentionally returns an error for testing")}}, nil
	})
	f.tool("test_sampling", "Asks the client's model to complete a prompt",
		json.RawMessage(`{"type":"object","properties":{"prompt":{"type":"string","description":"The prompt to send to the LLM"}},"required":["prompt"]}`),
		f.sampling)
	f.tool("test_elicitation", "Asks the user for input",
		json.RawMessage(`{"type":"object","properties":{"message":{"type":"string","description":"The message to show the user"}},"required":["message"]}`),
		f.elicitation)
	f.tool("test_elicitation_sep1034_defaults", "Elicits with defaults for every primitive type (SEP-1034)", nil, f.elicitWith("Test defaults for primitives", defaultsSchema))
	f.tool("test_elicitation_sep1330_enums", "Elicits with every enum variant (SEP-1330)", nil, f.elicitWith("Test enum schemas", enumsSchema))
	f.tool("json_schema_2020_12_tool", "Tool whose input schema uses JSON Schema 2020-12 features (SEP-1613)", schema202012,
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return result(text(fmt.Sprintf("JSON Schema 2020-12 tool called with: %s", req.Params.Arguments))), nil
		})
	f.tool("test_reconnection", "Completes normally (stdio has no SSE stream to close; weft's face owns that stream)", nil,
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return result(text("Reconnection test completed successfully.")), nil
		})
}

// pause waits between notifications, as the scenarios ask, unless the call
// is cancelled.
func pause(ctx context.Context) error {
	t := time.NewTimer(50 * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (f *fixture) withLogging(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		if i > 0 {
			if err := pause(ctx); err != nil {
				return nil, err
			}
		}
		if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "conformance", Data: msg}); err != nil {
			return nil, fmt.Errorf("log: %w", err)
		}
	}
	return result(text("Tool with logging executed successfully")), nil
}

func (f *fixture) withProgress(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	token := req.Params.GetProgressToken()
	for i, p := range []float64{0, 50, 100} {
		if i > 0 {
			if err := pause(ctx); err != nil {
				return nil, err
			}
		}
		if token == nil {
			continue
		}
		err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: token, Progress: p, Total: 100, Message: fmt.Sprintf("Completed step %.0f of 100", p),
		})
		if err != nil {
			return nil, fmt.Errorf("progress: %w", err)
		}
	}
	return result(text(fmt.Sprintf("progress token: %v", token))), nil
}

func (f *fixture) sampling(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Prompt string `json:"prompt"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
		Messages:  []*mcp.SamplingMessage{{Role: "user", Content: text(in.Prompt)}},
		MaxTokens: 100,
	})
	if err != nil {
		return nil, fmt.Errorf("sampling failed: %w", err)
	}
	answer := "(non-text response)"
	if t, ok := res.Content.(*mcp.TextContent); ok {
		answer = t.Text
	}
	return result(text("LLM response: " + answer)), nil
}

func (f *fixture) elicitation(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Message string `json:"message"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	return f.elicitWith(in.Message, userSchema)(ctx, req)
}

func (f *fixture) elicitWith(message string, schema json.RawMessage) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: message, RequestedSchema: schema})
		if err != nil {
			return nil, fmt.Errorf("elicitation failed: %w", err)
		}
		content, err := json.Marshal(res.Content)
		if err != nil {
			return nil, fmt.Errorf("elicitation content: %w", err)
		}
		return result(text(fmt.Sprintf("Elicitation completed: action=%s, content=%s", res.Action, content))), nil
	}
}

var userSchema = json.RawMessage(`{"type":"object","properties":{
	"username":{"type":"string","description":"User's response"},
	"email":{"type":"string","description":"User's email address"}},
	"required":["username","email"]}`)

var defaultsSchema = json.RawMessage(`{"type":"object","properties":{
	"name":{"type":"string","description":"User name","default":"John Doe"},
	"age":{"type":"integer","description":"User age","default":30},
	"score":{"type":"number","description":"User score","default":95.5},
	"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},
	"verified":{"type":"boolean","description":"Verification status","default":true}}}`)

var enumsSchema = json.RawMessage(`{"type":"object","properties":{
	"untitledSingle":{"type":"string","enum":["option1","option2","option3"]},
	"titledSingle":{"type":"string","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},
	"legacyEnum":{"type":"string","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},
	"untitledMulti":{"type":"array","minItems":1,"maxItems":3,"items":{"type":"string","enum":["option1","option2","option3"]}},
	"titledMulti":{"type":"array","minItems":1,"maxItems":3,"items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}}}`)

var schema202012 = json.RawMessage(`{
	"$schema":"https://json-schema.org/draft/2020-12/schema",
	"type":"object",
	"$defs":{"address":{"type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},
	"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"}},
	"additionalProperties":false}`)

var templateURI = uritemplate.MustNew("test://template/{id}/data")

func (f *fixture) addResources() {
	f.server.AddResource(&mcp.Resource{URI: "test://static-text", Name: "static-text", Description: "A static text resource", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return contents(&mcp.ResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: "This is the content of the static text resource."}), nil
		})
	f.server.AddResource(&mcp.Resource{URI: "test://static-binary", Name: "static-binary", Description: "A static binary resource (PNG)", MIMEType: "image/png"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return contents(&mcp.ResourceContents{URI: req.Params.URI, MIMEType: "image/png", Blob: f.png}), nil
		})
	f.server.AddResource(&mcp.Resource{URI: watchedURI, Name: "watched-resource", Description: "A resource that is updated after each subscription", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return contents(&mcp.ResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: "Watched resource content"}), nil
		})
	f.server.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: templateURI.Raw(), Name: "template", Description: "A template with an id parameter", MIMEType: "application/json"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			id := ""
			if m := templateURI.Match(req.Params.URI); m != nil {
				id = m.Get("id").String()
			}
			body, err := json.Marshal(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
			if err != nil {
				return nil, err
			}
			return contents(&mcp.ResourceContents{URI: req.Params.URI, MIMEType: "application/json", Text: string(body)}), nil
		})
}

func contents(c *mcp.ResourceContents) *mcp.ReadResourceResult {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}
}

// subscribe accepts every subscription and, once the SDK has recorded it,
// reports the resource updated so that the notification path is exercised.
func (f *fixture) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		// The SDK records the subscription after this handler returns.
		if err := pause(context.Background()); err == nil {
			_ = f.server.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: uri})
		}
	}()
	return nil
}

func (f *fixture) complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	var values []string
	if req.Params.Ref != nil && req.Params.Ref.Type == "ref/prompt" && req.Params.Argument.Name == "arg1" {
		values = []string{req.Params.Argument.Value + "-completed"}
	}
	if values == nil {
		values = []string{}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}, nil
}

func (f *fixture) addPrompts() {
	f.server.AddPrompt(&mcp.Prompt{Name: "test_simple_prompt", Title: "Simple Test Prompt", Description: "A prompt without arguments"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return messages("A simple test prompt", text("This is a simple prompt for testing.")), nil
		})
	f.server.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_arguments", Title: "Prompt With Arguments", Description: "A prompt with two required arguments",
		Arguments: []*mcp.PromptArgument{
			{Name: "arg1", Description: "First test argument", Required: true},
			{Name: "arg2", Description: "Second test argument", Required: true},
		}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			a := req.Params.Arguments
			return messages("A prompt with arguments", text(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"]))), nil
		})
	f.server.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_embedded_resource", Title: "Prompt With Embedded Resource", Description: "A prompt that embeds a resource",
		Arguments: []*mcp.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return messages("A prompt with an embedded resource",
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: req.Params.Arguments["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing."}},
				text("Please process the embedded resource above.")), nil
		})
	f.server.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_image", Title: "Prompt With Image", Description: "A prompt with image content"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return messages("A prompt with an image", &mcp.ImageContent{Data: f.png, MIMEType: "image/png"}, text("Please analyze the image above.")), nil
		})
}

func messages(desc string, cs ...mcp.Content) *mcp.GetPromptResult {
	res := &mcp.GetPromptResult{Description: desc}
	for _, c := range cs {
		res.Messages = append(res.Messages, &mcp.PromptMessage{Role: "user", Content: c})
	}
	return res
}
