package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/llm"
	"github.com/weft-dev/weft/internal/toolset"
)

// The meta tools that keep tools past the cap reachable; the
// agent serves them itself from its snapshot.
const (
	SearchToolName = "weft__search_tools"
	CallToolName   = "weft__call_tool"
	searchLimit    = 20
	// maxObservation bounds what one tool result puts into the conversation;
	// the run's record keeps it whole.
	maxObservation = 16000
)

// ItemDescriber is optionally implemented by a Caller that knows the
// descriptions of resources and prompts (keyed by the names Describer
// gives); the system context then shows them next to the names.
type ItemDescriber interface {
	ResourceDescriptions() map[string]string
	PromptDescriptions() map[string]string
}

// view is one iteration's snapshot of the catalog: taken at the
// start of the iteration and used for all of it, so a server added or
// removed mid-run shows up in the next iteration, never mid-call.
type view struct {
	caller    toolset.Caller
	tools     []toolset.Tool
	listed    []toolset.Tool
	servers   []toolset.ServerInfo
	resources []string
	prompts   []string
	// descriptions of resources and prompts, when the caller knows them
	resDesc, promptDesc map[string]string
}

func snapshot(c toolset.Caller, maxTools int) *view {
	v := &view{caller: c, tools: c.Tools()}
	v.listed = v.tools
	if len(v.tools) > maxTools {
		v.listed = v.tools[:maxTools]
	}
	if d, ok := c.(toolset.Describer); ok {
		v.servers, v.resources, v.prompts = d.Servers(), d.ResourceNames(), d.PromptNames()
	}
	if d, ok := c.(ItemDescriber); ok {
		v.resDesc, v.promptDesc = d.ResourceDescriptions(), d.PromptDescriptions()
	}
	return v
}

// overflow is how many tools are reachable only through search.
func (v *view) overflow() int { return len(v.tools) - len(v.listed) }

// llmTools are the tools offered to the model: those within the cap, plus
// the meta tools when some are past it.
func (v *view) llmTools() []llm.Tool {
	out := make([]llm.Tool, 0, len(v.listed)+2)
	for _, t := range v.listed {
		out = append(out, llm.Tool{Name: t.Name, Description: t.Description, Schema: t.InputSchema})
	}
	if v.overflow() > 0 {
		out = append(out,
			llm.Tool{Name: SearchToolName, Description: "Search every tool weft can reach, including those not listed. Returns matching tools with their input schemas; call one with " + CallToolName + ".",
				Schema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"words to match against tool names and descriptions"}}}`)},
			llm.Tool{Name: CallToolName, Description: "Call any tool weft can reach by its exact name, with its arguments.",
				Schema: json.RawMessage(`{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"arguments":{"type":"object"}}}`)})
	}
	return out
}

// context is the system text about what weft can reach right now.
func (v *view) context() string {
	var b strings.Builder
	b.WriteString("MCP servers and their availability:\n")
	if len(v.servers) == 0 {
		b.WriteString("- (none configured)\n")
	}
	for _, s := range v.servers {
		fmt.Fprintf(&b, "- %s: %s", s.Name, s.Status)
		if s.Breaker != "" {
			fmt.Fprintf(&b, ", circuit breaker %s", s.Breaker)
		}
		b.WriteString("\n")
	}
	if len(v.resources) > 0 {
		fmt.Fprintf(&b, "Resources (their content is fetched only on request): %s\n", describe(v.resources, v.resDesc))
	}
	if len(v.prompts) > 0 {
		fmt.Fprintf(&b, "Prompts: %s\n", describe(v.prompts, v.promptDesc))
	}
	if n := v.overflow(); n > 0 {
		fmt.Fprintf(&b, "%d more tools are not listed; find them with %s and call them with %s.\n", n, SearchToolName, CallToolName)
	}
	return b.String()
}

// describe lists names, each with its description when there is one.
func describe(names []string, desc map[string]string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n
		if d := strings.Join(strings.Fields(desc[n]), " "); d != "" {
			parts[i] += " (" + d + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// call runs one tool call the model asked for and returns what it observed.
// Only tools of this snapshot are reachable.
func (v *view) call(ctx context.Context, tc llm.ToolCall) Action {
	act := Action{Tool: tc.Name, Args: tc.Args}
	var args map[string]any
	if err := json.Unmarshal(tc.Args, &args); err != nil {
		act.Observation, act.IsError = fmt.Sprintf("arguments are not a JSON object (%v); call %s again with an object", err, tc.Name), true
		return act
	}
	name := tc.Name
	switch name {
	case SearchToolName:
		q, _ := args["query"].(string)
		act.Observation = v.search(q)
		return act
	case CallToolName:
		name, _ = args["name"].(string)
		inner, _ := args["arguments"].(map[string]any)
		args = inner
	}
	if _, ok := toolset.Find(v.tools, name); !ok {
		act.Observation, act.IsError = fmt.Sprintf("unknown tool %q; use one of the listed tools or find one with %s", name, SearchToolName), true
		return act
	}
	res, err := v.caller.CallTool(ctx, name, args)
	if err != nil {
		act.Observation, act.IsError = "tool call failed: "+err.Error(), true
		return act
	}
	act.Observation, act.IsError = resultText(res), res.IsError
	return act
}

// search matches every word of query against tool names and descriptions.
func (v *view) search(query string) string {
	type hit struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	}
	words := strings.Fields(strings.ToLower(query))
	var hits []hit
	for _, t := range v.tools {
		hay := strings.ToLower(t.Name + " " + t.Description)
		ok := true
		for _, w := range words {
			ok = ok && strings.Contains(hay, w)
		}
		if ok {
			hits = append(hits, hit{t.Name, t.Description, t.InputSchema})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Name < hits[j].Name })
	if len(hits) > searchLimit {
		hits = hits[:searchLimit]
	}
	b, _ := json.Marshal(map[string]any{"tools": hits})
	return string(b)
}

// resultText flattens a tool result to text: its text content, else its
// structured content as JSON.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		case *mcp.ImageContent:
			parts = append(parts, "[image "+c.MIMEType+"]")
		case *mcp.EmbeddedResource:
			if c.Resource != nil {
				parts = append(parts, c.Resource.Text)
			}
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		return string(b)
	}
	return strings.Join(parts, "\n")
}

// clip bounds s for the conversation.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… [%d more characters]", len(s)-n)
}
