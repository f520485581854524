package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Plans saved by mcp-cli (its planner writes ~/.mcp-cli/plans/<id>.json)
// differ from weft's own in small ways that this file absorbs, so that such
// a file is read as it is: step indexes and dependencies are strings ("1",
// ["1"]), steps and tool calls carry uuids (kept in ID), and a step may name
// its single call as "tool" and "args" instead of "tool_calls". Their
// "metadata" object is kept in Plan.Metadata.

// stepWire is a Step as written: indexes are numbers or strings.
type stepWire struct {
	ID             string         `json:"id,omitempty"`
	Index          flexIndex      `json:"index"`
	Title          string         `json:"title"`
	ToolCalls      []ToolCall     `json:"tool_calls"`
	Tool           string         `json:"tool,omitempty"`
	Args           map[string]any `json:"args,omitempty"`
	DependsOn      []flexIndex    `json:"depends_on,omitempty"`
	ResultVariable string         `json:"result_variable,omitempty"`
	Retry          *Retry         `json:"retry,omitempty"`
	OnError        OnError        `json:"on_error,omitempty"`
	Fallback       *ToolCall      `json:"fallback,omitempty"`
}

// UnmarshalJSON reads a step whose index and dependencies are numbers or
// strings of digits, refusing unknown keys like Parse does.
func (s *Step) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	var w stepWire
	if err := dec.Decode(&w); err != nil {
		return err
	}
	calls := w.ToolCalls
	switch {
	case w.Tool != "" && len(calls) > 0:
		return fmt.Errorf("step %d has both \"tool\" and \"tool_calls\"; keep one", w.Index)
	case w.Tool != "":
		calls = []ToolCall{{Name: w.Tool, Args: w.Args}}
	case w.Args != nil:
		return fmt.Errorf("step %d has \"args\" without \"tool\"; put them in its tool_calls", w.Index)
	}
	*s = Step{ID: w.ID, Index: int(w.Index), Title: w.Title, ToolCalls: calls, ResultVariable: w.ResultVariable,
		Retry: w.Retry, OnError: w.OnError, Fallback: w.Fallback}
	for _, d := range w.DependsOn {
		s.DependsOn = append(s.DependsOn, int(d))
	}
	return nil
}

// UnmarshalJSON reads a tool call, keeping the numbers of its arguments
// exact and refusing unknown keys.
func (c *ToolCall) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	type plain ToolCall // no methods: no recursion
	var p plain
	if err := dec.Decode(&p); err != nil {
		return err
	}
	*c = ToolCall(p)
	return nil
}

// flexIndex is a step index written as a number (1) or a string ("1").
type flexIndex int

func (i *flexIndex) UnmarshalJSON(b []byte) error {
	text := string(b)
	if s, err := strconv.Unquote(text); err == nil {
		text = strings.TrimSpace(s)
	}
	n, err := strconv.Atoi(text)
	if err != nil || n < 0 {
		return fmt.Errorf("step index %s is not a whole number; weft numbers steps 1, 2, … (sub-steps such as \"1.2\" need renumbering)", b)
	}
	*i = flexIndex(n)
	return nil
}

// ToolMap is one --map rule: a plan tool name that starts with Prefix and is
// not already namespaced is the tool of Server with the prefix removed.
// Server=filesystem with Prefix "" makes read_file filesystem__read_file;
// Prefix "fs_" makes fs_read_file filesystem__read_file.
type ToolMap struct {
	Server string
	Prefix string
}

// ParseToolMaps reads SERVER=PREFIX rules; two rules may not share a prefix.
func ParseToolMaps(rules []string) ([]ToolMap, error) {
	var out []ToolMap
	seen := map[string]string{}
	for _, r := range rules {
		server, prefix, ok := strings.Cut(r, "=")
		if !ok || server == "" || strings.Contains(server, "__") {
			return nil, fmt.Errorf("--map %q: write it as SERVER=PREFIX (an empty prefix maps every bare name), e.g. filesystem=", r)
		}
		if other, dup := seen[prefix]; dup {
			return nil, fmt.Errorf("--map %q and --map %s=%s share the prefix %q; give each server its own", r, other, prefix, prefix)
		}
		seen[prefix] = server
		out = append(out, ToolMap{Server: server, Prefix: prefix})
	}
	return out, nil
}

// MapTools renames the plan's tools by the rules: a name that already holds
// weft's namespace separator (__) is kept; otherwise the rule with the
// longest matching prefix applies, and a name no rule matches is kept (the
// validation against the catalog then reports it).
func (p *Plan) MapTools(rules []ToolMap) {
	if len(rules) == 0 {
		return
	}
	rename := func(c *ToolCall) {
		if c == nil || strings.Contains(c.Name, "__") {
			return
		}
		best := -1
		for i, r := range rules {
			if strings.HasPrefix(c.Name, r.Prefix) && (best < 0 || len(r.Prefix) > len(rules[best].Prefix)) {
				best = i
			}
		}
		if best >= 0 {
			c.Name = rules[best].Server + "__" + strings.TrimPrefix(c.Name, rules[best].Prefix)
		}
	}
	for i := range p.Steps {
		for j := range p.Steps[i].ToolCalls {
			rename(&p.Steps[i].ToolCalls[j])
		}
		rename(p.Steps[i].Fallback)
	}
}
