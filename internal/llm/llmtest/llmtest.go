// Package llmtest is a scripted LLM for tests: an HTTP server on loopback
// that speaks the real OpenAI Chat Completions or Anthropic Messages wire
// format and answers each request with the next reply of a script, while
// recording what it was asked.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Wire is the API a Server speaks.
type Wire int

// Wire formats.
const (
	OpenAI    Wire = iota // POST …/chat/completions
	Anthropic             // POST /v1/messages
)

// WireCase pairs a wire format with the [llm] provider that speaks it, for
// tests that run once per provider.
type WireCase struct {
	Name     string
	Wire     Wire
	Provider string
}

// Wires lists every wire format with its provider.
var Wires = []WireCase{{"openai", OpenAI, "openai"}, {"anthropic", Anthropic, "anthropic"}}

// Call is a tool call in a scripted reply.
type Call struct {
	Name string
	Args string // a JSON object; empty means {}
}

// Usage is the token usage a reply reports.
type Usage struct {
	Input, Output int64
}

// Reply is one scripted answer.
type Reply struct {
	Text  string
	Calls []Call
	// Usage is reported when non-nil; nil leaves the usage field out.
	Usage *Usage
	// Status, when non-zero, answers with this HTTP error status and an
	// error body in the wire's format instead of a reply.
	Status int
	// Header is added to the answer (e.g. "Retry-After-Ms": "1").
	Header map[string]string
	// Hold blocks until the client gives up on the request (its context
	// ends), for timeout tests; nothing is written.
	Hold bool
}

// Message is one message of a recorded request, flattened to text.
type Message struct {
	Role string // system, user, assistant, tool
	Text string // text, or for a tool call "name args", for a result its content
}

// Request is one request the server received.
type Request struct {
	Index    int
	Model    string
	Tools    []string
	Messages []Message
	Header   http.Header
	Body     []byte
}

// HasTool reports whether the request offered the named tool.
func (r Request) HasTool(name string) bool {
	for _, t := range r.Tools {
		if t == name {
			return true
		}
	}
	return false
}

// Server is a running scripted LLM.
type Server struct {
	wire Wire
	srv  *httptest.Server

	mu        sync.Mutex
	script    []Reply
	requests  []Request
	onRequest func(Request)
}

// New starts a server speaking wire with the given script; it stops when
// the test ends. A request past the end of the script gets a 400 error.
func New(t testing.TB, wire Wire, script ...Reply) *Server {
	t.Helper()
	s := &Server{wire: wire, script: script}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the value for [llm] base_url.
func (s *Server) URL() string {
	if s.wire == OpenAI {
		return s.srv.URL + "/v1"
	}
	return s.srv.URL
}

// Requests returns the requests received so far (retries included).
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// OnRequest sets a function called with each request before it is
// answered (from the server's goroutine).
func (s *Server) OnRequest(f func(Request)) {
	s.mu.Lock()
	s.onRequest = f
	s.mu.Unlock()
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	want := "/v1/messages"
	if s.wire == OpenAI {
		want = "/v1/chat/completions"
	}
	if r.Method != http.MethodPost || r.URL.Path != want {
		http.Error(w, `{"error":{"message":"llmtest: no such endpoint `+r.URL.Path+`"}}`, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	req, err := s.parse(body)
	if err != nil {
		s.fail(w, http.StatusBadRequest, "llmtest: cannot parse request: "+err.Error())
		return
	}
	req.Header = r.Header.Clone()
	reply, ok, hook := s.next(&req)
	if hook != nil {
		hook(req)
	}
	switch {
	case !ok:
		s.fail(w, http.StatusBadRequest, fmt.Sprintf("llmtest: script exhausted after %d replies", req.Index))
	case reply.Hold:
		<-r.Context().Done()
	case reply.Status != 0:
		for k, v := range reply.Header {
			w.Header().Set(k, v)
		}
		s.fail(w, reply.Status, fmt.Sprintf("scripted status %d", reply.Status))
	default:
		for k, v := range reply.Header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(s.encode(req, reply))
	}
}

// next records req and takes the next reply of the script.
func (s *Server) next(req *Request) (Reply, bool, func(Request)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	req.Index = len(s.requests)
	s.requests = append(s.requests, *req)
	if req.Index >= len(s.script) {
		return Reply{}, false, s.onRequest
	}
	return s.script[req.Index], true, s.onRequest
}

func (s *Server) fail(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Should-Retry", map[bool]string{true: "true", false: "false"}[status == 429 || status >= 500])
	w.WriteHeader(status)
	m, _ := json.Marshal(msg)
	if s.wire == OpenAI {
		fmt.Fprintf(w, `{"error":{"message":%s,"type":"invalid_request_error","code":null}}`, m)
		return
	}
	fmt.Fprintf(w, `{"type":"error","error":{"type":"api_error","message":%s}}`, m)
}

func (s *Server) parse(body []byte) (Request, error) {
	if s.wire == OpenAI {
		return parseOpenAI(body)
	}
	return parseAnthropic(body)
}

func (s *Server) encode(req Request, r Reply) []byte {
	if s.wire == OpenAI {
		return encodeOpenAI(req, r)
	}
	return encodeAnthropic(req, r)
}

// args returns a call's arguments as a JSON object text.
func (c Call) args() string {
	if strings.TrimSpace(c.Args) == "" {
		return "{}"
	}
	return c.Args
}
