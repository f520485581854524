//go:build linux

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The floor of a relay for go-sdk's default client: what weft must do with
// a stateless 2026-07-28 tools/call in front of a stdio child that speaks
// 2025-11-25, and nothing else. The child is initialised once, at 2025-11-25,
// by the relay; each call's envelope is converted (its _meta triple dropped,
// its id replaced by the relay's own number, the result given the server's
// identity in _meta and its result type) and relayed over the one pipe. The
// verbatim stdio floors are no floor for this client: they pass the
// 2026-07-28 request to the child, which answers it at a higher cost than a
// legacy one. BenchmarkFloorC1 and BenchmarkFloorC64 add this path (as
// floor-stateless) when WEFT_FLOOR_REV=default.

// stdioStatelessFloor relays stateless calls to a child initialised at
// 2025-11-25. With mux false, one call at a time: the handler writes the
// converted line and reads the child's answer itself, as stdioFloor does.
// With mux true, one reader of the child's stdout hands each answer to its
// call by the relay's id, as stdioMuxFloor does (and weft's stdio upstream).
type stdioStatelessFloor struct {
	mux      bool
	mu       sync.Mutex // serialises writes to the child (and, without mux, whole calls)
	in       io.Writer
	out      *bufio.Reader
	next     int64           // the relay's last id given to the child; under mu
	info     json.RawMessage // the child's serverInfo, put in every result's _meta
	discover []byte          // the answer to server/discover, less its id

	pmu     sync.Mutex
	pending map[int64]chan []byte // with mux, the calls waiting by the relay's id
}

// startStdioStatelessFloor starts the child, makes the 2025-11-25 handshake
// and, with mux, starts the reader of the child's stdout, which ends when
// the child's stdout closes (the child ends with ctx).
func startStdioStatelessFloor(ctx context.Context, bin string, mux bool) (*stdioStatelessFloor, error) {
	cmd := exec.CommandContext(ctx, bin)
	cmd.Stderr = os.Stderr
	in, out, err := startPiped(cmd)
	if err != nil {
		return nil, err
	}
	f := &stdioStatelessFloor{mux: mux, in: in, out: out, pending: map[int64]chan []byte{}}
	if err := f.handshake(); err != nil {
		return nil, fmt.Errorf("the stateless floor's handshake with %s: %w", bin, err)
	}
	if mux {
		go f.read()
	}
	return f, nil
}

// handshake initialises the child at 2025-11-25 and prepares the answer to
// a client's server/discover from its result.
func (f *stdioStatelessFloor) handshake() error {
	const initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"floor","version":"0"}}}` + "\n"
	if _, err := io.WriteString(f.in, initialize); err != nil {
		return err
	}
	line, err := f.out.ReadBytes('\n')
	if err != nil {
		return err
	}
	var resp struct {
		Result *mcp.InitializeResult `json:"result"`
	}
	if err := json.Unmarshal(line, &resp); err != nil || resp.Result == nil {
		return fmt.Errorf("initialize answered %q", line)
	}
	if f.info, err = json.Marshal(resp.Result.ServerInfo); err != nil {
		return err
	}
	res := &mcp.DiscoverResult{SupportedVersions: []string{"2026-07-28"}, Capabilities: resp.Result.Capabilities,
		Meta: mcp.Meta{mcp.MetaKeyServerInfo: resp.Result.ServerInfo}}
	if f.discover, err = json.Marshal(res); err != nil {
		return err
	}
	// The result type is go-sdk's to set; it is written where go-sdk puts it.
	f.discover = append(f.discover[:len(f.discover)-1], `,"resultType":"complete"}`...)
	_, err = io.WriteString(f.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	return err
}

// statelessEnvelope is what the floor reads of a client's request.
type statelessEnvelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name      json.RawMessage `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"params"`
}

func (f *stdioStatelessFloor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, ok := postBody(w, r)
	if !ok {
		return
	}
	var env statelessEnvelope
	if json.Unmarshal(body, &env) != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	switch {
	case env.ID == nil:
		w.WriteHeader(http.StatusAccepted)
	case env.Method == "server/discover":
		writeFloorResult(w, env.ID, f.discover)
	case env.Method == "tools/call":
		f.call(w, r, &env)
	default:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":"the floor relays tools/call only"}}`, env.ID, jsonrpc.CodeMethodNotFound)
	}
}

// call relays one tools/call: the legacy request under the relay's id, and
// the child's result given the 2026-07-28 result's _meta and type, under
// the client's id.
func (f *stdioStatelessFloor) call(w http.ResponseWriter, r *http.Request, env *statelessEnvelope) {
	f.mu.Lock()
	f.next++
	id := f.next
	line := legacyCall(id, env.Params.Name, env.Params.Arguments)
	var ch chan []byte
	if f.mux {
		ch = make(chan []byte, 1)
		f.pmu.Lock()
		f.pending[id] = ch
		f.pmu.Unlock()
	} else {
		defer f.mu.Unlock()
	}
	_, err := f.in.Write(line)
	if f.mux {
		f.mu.Unlock()
	}
	if err != nil {
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	var answer []byte
	if f.mux {
		select {
		case answer = <-ch:
		case <-r.Context().Done():
			f.pmu.Lock()
			delete(f.pending, id)
			f.pmu.Unlock()
			return
		}
	} else if answer, _, err = f.response(); err != nil {
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	result, ok := f.statelessResult(answer)
	if !ok {
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	writeFloorResult(w, env.ID, result)
}

// legacyCall is the 2025-11-25 tools/call line for the child.
func legacyCall(id int64, name, args json.RawMessage) []byte {
	line := make([]byte, 0, 96+len(name)+len(args))
	line = append(line, `{"jsonrpc":"2.0","id":`...)
	line = strconv.AppendInt(line, id, 10)
	line = append(line, `,"method":"tools/call","params":{"name":`...)
	line = append(line, name...)
	if args != nil {
		line = append(line, `,"arguments":`...)
		line = append(line, args...)
	}
	return append(line, "}}\n"...)
}

// childAnswer is what the floor reads of the child's line.
type childAnswer struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
}

// response reads the child's lines until one is a response, and returns
// its result and the relay's id.
func (f *stdioStatelessFloor) response() (json.RawMessage, int64, error) {
	for {
		line, err := f.out.ReadSlice('\n')
		if err != nil {
			return nil, 0, err
		}
		var a childAnswer
		if json.Unmarshal(line, &a) != nil || a.Method != "" {
			continue // a request or notification of the child's (the echo server sends none during a call)
		}
		id, err := strconv.ParseInt(string(a.ID), 10, 64)
		if err != nil {
			return nil, 0, errors.New("the child answered an id the floor did not give")
		}
		return a.Result, id, nil
	}
}

// read hands each of the child's results to the call with its id.
func (f *stdioStatelessFloor) read() {
	for {
		result, id, err := f.response()
		if err != nil {
			return
		}
		f.pmu.Lock()
		ch := f.pending[id]
		delete(f.pending, id)
		f.pmu.Unlock()
		if ch != nil {
			ch <- append([]byte(nil), result...) // result is a slice of the reader's buffer
		}
	}
}

// statelessResult is a legacy result as a 2026-07-28 one: the server's
// identity in _meta and the result type "complete" spliced around its
// members (a plain result has neither; a result that is not an object with
// members is refused).
func (f *stdioStatelessFloor) statelessResult(legacy json.RawMessage) ([]byte, bool) {
	if len(legacy) < 3 || legacy[0] != '{' || legacy[len(legacy)-1] != '}' {
		return nil, false
	}
	const head, tail = `{"_meta":{"` + mcp.MetaKeyServerInfo + `":`, `,"resultType":"complete"}`
	out := make([]byte, 0, len(head)+len(f.info)+len(legacy)+len(tail))
	out = append(out, head...)
	out = append(out, f.info...)
	out = append(out, "},"...)
	out = append(out, legacy[1:len(legacy)-1]...)
	return append(out, tail...), true
}

// writeFloorResult answers a request of id with result as application/json.
func writeFloorResult(w http.ResponseWriter, id json.RawMessage, result []byte) {
	w.Header().Set("Content-Type", "application/json")
	out := make([]byte, 0, 40+len(id)+len(result))
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	out = append(out, `,"result":`...)
	out = append(out, result...)
	_, _ = w.Write(append(out, '}'))
}
