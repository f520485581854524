package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
)

// Kind classifies a failed request so callers can branch on it.
type Kind int

// Kinds of failure.
const (
	KindRequest     Kind = iota // the endpoint refused the request (4xx)
	KindAuth                    // 401/403: the API key is missing or wrong
	KindNotFound                // 404: wrong model or base URL
	KindRateLimited             // 429 after every retry
	KindServer                  // 5xx after every retry
	KindUnreachable             // no HTTP answer at all (DNS, refused, TLS, …)
	KindBadReply                // an answer weft cannot read
)

// Error is a failed request to a provider, with what the user can do.
type Error struct {
	Kind     Kind
	Provider string
	Endpoint string // base URL requests went to
	Status   int    // HTTP status, 0 when there was no answer
	Detail   string // the provider's own message, if any
	Hint     string // what to do
	Err      error
}

// Error says what failed and what to do, on one line.
func (e *Error) Error() string {
	var b strings.Builder
	switch e.Kind {
	case KindAuth:
		fmt.Fprintf(&b, "%s at %s rejected the API key (%d)", e.Provider, e.Endpoint, e.Status)
	case KindNotFound:
		fmt.Fprintf(&b, "%s at %s answered 404", e.Provider, e.Endpoint)
	case KindRateLimited:
		fmt.Fprintf(&b, "%s at %s is rate limiting requests (429)", e.Provider, e.Endpoint)
	case KindServer:
		fmt.Fprintf(&b, "%s at %s failed (%d)", e.Provider, e.Endpoint, e.Status)
	case KindUnreachable:
		fmt.Fprintf(&b, "cannot reach %s at %s", e.Provider, e.Endpoint)
	case KindBadReply:
		fmt.Fprintf(&b, "%s at %s sent a reply weft cannot read", e.Provider, e.Endpoint)
	default:
		fmt.Fprintf(&b, "%s at %s refused the request (%d)", e.Provider, e.Endpoint, e.Status)
	}
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	if e.Hint != "" {
		b.WriteString("; " + e.Hint)
	}
	return b.String()
}

// Unwrap returns the transport or status error underneath.
func (e *Error) Unwrap() error { return e.Err }

// classify turns a failed request into an *Error. Context errors pass through
// unchanged so that callers see timeouts and cancellation as such.
func classify(ctx context.Context, c *endpoint, status int, body string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err
	}
	e := &Error{Provider: c.provider, Endpoint: c.baseURL, Status: status, Err: err}
	if status == 0 {
		e.Kind = KindUnreachable
		e.Detail = netReason(err)
		e.Hint = "start the server or fix [llm] base_url"
		return e
	}
	e.Detail = providerMessage(body)
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Kind = KindAuth
		e.Hint = fmt.Sprintf("set $%s to a valid key (or name another variable in [llm] api_key_env)", c.keyEnv)
	case status == http.StatusNotFound:
		e.Kind = KindNotFound
		e.Hint = fmt.Sprintf("check [llm] model (%q) and base_url (OpenAI-compatible servers usually end in /v1)", c.model)
	case status == http.StatusTooManyRequests:
		e.Kind = KindRateLimited
		e.Hint = fmt.Sprintf("gave up after %d retries; wait and try again", c.retries)
	case status >= 500:
		e.Kind = KindServer
		e.Hint = fmt.Sprintf("gave up after %d retries; try again later", c.retries)
	default:
		e.Kind = KindRequest
		e.Hint = "check [llm] model and that the server supports tool calling"
	}
	return e
}

// netReason names why no HTTP answer came, in a few words.
func netReason(err error) string {
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case errors.As(err, &dns):
		return "cannot resolve " + dns.Name
	case errors.As(err, &op) && op.Err != nil:
		return op.Err.Error()
	case err != nil:
		return lastClause(err.Error())
	}
	return "no answer"
}

// lastClause keeps the innermost part of a wrapped error message.
func lastClause(s string) string {
	if i := strings.LastIndex(s, ": "); i >= 0 {
		return s[i+2:]
	}
	return s
}

// providerMessage extracts the human message from an error body of either
// wire format ({"error":{"message":…}}), else returns the body, trimmed.
func providerMessage(body string) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal([]byte(body), &v) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(v.Error, &inner) == nil && inner.Message != "" {
			return oneLine(inner.Message)
		}
		var s string
		if json.Unmarshal(v.Error, &s) == nil && s != "" {
			return oneLine(s)
		}
		if v.Message != "" {
			return oneLine(v.Message)
		}
	}
	return oneLine(body)
}

// oneLine collapses whitespace and bounds the length of a message.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// badReply reports a reply weft cannot use.
func badReply(c *endpoint, format string, args ...any) error {
	return &Error{Kind: KindBadReply, Provider: c.provider, Endpoint: c.baseURL, Detail: fmt.Sprintf(format, args...),
		Hint: "check that [llm] base_url points to a server speaking this provider's API"}
}
