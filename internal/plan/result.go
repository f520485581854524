package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrTool reports a call that the tool answered with an error result.
var ErrTool = errors.New("tool error")

// resultValue turns a tool's answer into a step result: the
// structured content when present, else the text, decoded as JSON when it is
// JSON. A result flagged as an error becomes an error holding its text.
func resultValue(res *mcp.CallToolResult) (any, error) {
	if res == nil {
		return nil, nil
	}
	text := resultText(res)
	if res.IsError {
		if text == "" {
			text = "the tool reported an error without a message"
		}
		return nil, fmt.Errorf("%w: %s", ErrTool, text)
	}
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err == nil {
			if v, err := decodeJSON(b); err == nil {
				return v, nil
			}
		}
	}
	if v, err := decodeJSON([]byte(text)); err == nil {
		return v, nil
	}
	return text, nil
}

// resultText joins the text parts of a result.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}
