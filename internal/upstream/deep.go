package upstream

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// messageDepthLimit is the nesting go-sdk's decoder allows in one JSON-RPC
// message. A message over it fails whole, so one tool with an absurdly deep
// schema would take its server's every tool offline.
const messageDepthLimit = 1000

// refusedKey marks a schema weft replaced because it nested too deeply;
// checkSchema refuses the tool that carries it.
const refusedKey = "x-weft-refused"

// shallowSchemas returns msg with every tool schema nested more than
// MaxSchemaDepth levels replaced by a marker, when msg as a whole nests too
// deeply for the SDK to decode; any other message is returned as it is.
func shallowSchemas(msg []byte) []byte {
	if depth(msg) < messageDepthLimit {
		return msg
	}
	var m map[string]any
	if json.Unmarshal(msg, &m) != nil {
		return msg
	}
	res, _ := m["result"].(map[string]any)
	tools, _ := res["tools"].([]any)
	changed := false
	for _, t := range tools {
		tool, _ := t.(map[string]any)
		for _, key := range []string{"inputSchema", "outputSchema"} {
			if s, ok := tool[key]; ok && valueDepth(s) > MaxSchemaDepth {
				tool[key] = map[string]any{"type": "object", refusedKey: "nested more than " + itoa(MaxSchemaDepth) + " levels deep"}
				changed = true
			}
		}
	}
	if !changed {
		return msg
	}
	out, err := json.Marshal(m)
	if err != nil {
		return msg
	}
	return out
}

// shallowLong is shallowSchemas for a message weft reads itself, as
// shallowBody applies it to go-sdk's: only a message long enough to nest
// messageDepthLimit levels is walked.
func shallowLong(msg []byte) []byte {
	if len(msg) < messageDepthLimit {
		return msg
	}
	return shallowSchemas(msg)
}

// shallowFor is shallowLong for a message of want's response: the pages
// of weft's own list are left as they are (a walk of the whole page less
// at every start): the raw list declines a page nested that deeply, and
// go-sdk's list, which it then falls back to, is made shallow by
// shallowBody. The other messages of the stream have no tools to cut.
func shallowFor(want callID, msg []byte) []byte {
	if want.readsResult {
		return msg
	}
	return shallowLong(msg)
}

// valueDepth is depth for a decoded value.
func valueDepth(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return depth(b)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// shallowBody applies shallowSchemas to an HTTP upstream's response: each
// event of a stream, or a whole JSON body (bounded by max bytes). A
// stream's ordered notifications are counted in order (when order is not
// nil) as its lines are read, before go-sdk can read a result that
// follows them: the line check has each whole line already, where a
// reader counting go-sdk's reads had to copy every line that spanned two.
func shallowBody(resp *http.Response, max int, order *noteOrder) {
	ct := resp.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "text/event-stream"):
		// One reader per response (per call), with a small pooled buffer
		// (httpbuf.go): a 64 KiB one was most of what a call allocated in
		// weft's own code.
		resp.Body = newStreamLines(resp.Body, max, func(line []byte) ([]byte, error) {
			data, ok := bytes.CutPrefix(line, []byte("data:"))
			if !ok {
				return line, nil
			}
			if order != nil && len(data) <= maxCountedLine {
				order.count(bytes.TrimRight(data, "\r\n"))
			}
			if len(data) >= messageDepthLimit {
				fixed := shallowSchemas(bytes.TrimSpace(data))
				return append(append([]byte("data: "), fixed...), '\n'), nil
			}
			return line, nil
		})
	case strings.HasPrefix(ct, "application/json"):
		resp.Body = &jsonBody{rc: resp.Body, max: max}
	}
}

// jsonBody reads a whole JSON response on first Read and passes it through
// shallowSchemas.
type jsonBody struct {
	rc   io.ReadCloser
	max  int
	buf  *bytes.Reader
	err  error
	read bool
}

func (b *jsonBody) Read(p []byte) (int, error) {
	if !b.read {
		b.read = true
		data, err := io.ReadAll(io.LimitReader(b.rc, int64(b.max)+1))
		b.buf, b.err = bytes.NewReader(shallowSchemas(data)), err
	}
	if b.buf.Len() == 0 && b.err != nil {
		return 0, b.err
	}
	return b.buf.Read(p)
}

func (b *jsonBody) Close() error { return b.rc.Close() }
