package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// wantsStream reports whether an Anthropic request asked for server-sent
// events ("stream": true), as Claude Code always does.
func wantsStream(body []byte) bool {
	var in struct {
		Stream bool `json:"stream"`
	}
	return json.Unmarshal(body, &in) == nil && in.Stream
}

// writeAnthropicSSE answers with r as the Messages streaming events:
// message_start, a start/delta/stop triple per content block, message_delta
// with the stop reason, message_stop.
func writeAnthropicSSE(w http.ResponseWriter, req Request, r Reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	usage := map[string]any{"input_tokens": 1, "output_tokens": 1}
	if r.Usage != nil {
		usage = map[string]any{"input_tokens": r.Usage.Input, "output_tokens": r.Usage.Output}
	}
	event(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": fmt.Sprintf("msg_%d", req.Index), "type": "message", "role": "assistant", "model": req.Model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	index := 0
	block := func(start, delta map[string]any) {
		event(w, "content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": start})
		event(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": delta})
		event(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
	}
	if r.Text != "" {
		block(map[string]any{"type": "text", "text": ""}, map[string]any{"type": "text_delta", "text": r.Text})
	}
	stop := "end_turn"
	for i, c := range r.Calls {
		block(map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d_%d", req.Index, i), "name": c.Name, "input": map[string]any{}},
			map[string]any{"type": "input_json_delta", "partial_json": c.args()})
		stop = "tool_use"
	}
	event(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": usage["output_tokens"]}})
	event(w, "message_stop", map[string]any{"type": "message_stop"})
}

func event(w http.ResponseWriter, name string, data any) {
	b, _ := json.Marshal(data)
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
