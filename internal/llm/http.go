package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// Retry timing, as the providers' own SDKs do it: a Retry-After(-Ms) answer
// up to a minute is honoured, else the wait doubles from half a second up
// to eight, less up to a quarter of jitter.
const (
	retryInitial    = 500 * time.Millisecond
	retryMax        = 8 * time.Second
	retryAfterLimit = time.Minute
	// attemptTimeout bounds one request that never answers.
	attemptTimeout = 10 * time.Minute
	// maxReplyBytes bounds a reply weft reads into memory.
	maxReplyBytes = 32 << 20
)

// endpoint is what both providers keep for requests and error messages.
type endpoint struct {
	provider  string
	baseURL   string
	model     string
	keyEnv    string
	maxTokens int
	retries   int
	client    *http.Client
	header    http.Header // the provider's authentication and version headers
}

// Model names the model requests go to.
func (e *endpoint) Model() string { return e.model }

func newEndpoint(provider, base string, cfg Config, header http.Header) endpoint {
	client := cfg.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	return endpoint{provider: provider, baseURL: base, model: cfg.Model, keyEnv: cfg.APIKeyEnv,
		maxTokens: cfg.MaxTokens, retries: cfg.MaxRetries, client: client, header: header}
}

// post sends in as JSON to the endpoint's path and decodes the 2xx reply
// into out, retrying a connection error, 408, 409, 429 or 5xx as the
// provider's SDKs do. Errors are *Error or the context's error.
func (e *endpoint) post(ctx context.Context, path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("encode the %s request: %w", e.provider, err)
	}
	for attempt := 0; ; attempt++ {
		status, reply, header, err := e.attempt(ctx, path, body)
		if err == nil && status/100 == 2 {
			if json.Unmarshal(reply, out) != nil {
				return badReply(e, "the reply is not the JSON this API answers")
			}
			return nil
		}
		if attempt >= e.retries || ctx.Err() != nil || !retryable(status, header) {
			if err == nil {
				err = fmt.Errorf("POST %s%s: status %d", e.baseURL, path, status)
			}
			return classify(ctx, e, status, string(reply), err)
		}
		if err := sleep(ctx, retryDelay(attempt, header)); err != nil {
			return err
		}
	}
}

// attempt makes one request; status is 0 when no answer came.
func (e *endpoint) attempt(ctx context.Context, path string, body []byte) (int, []byte, http.Header, error) {
	ctx, cancel := context.WithTimeout(ctx, attemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.baseURL+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	for k, v := range e.header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := e.client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(io.LimitReader(resp.Body, maxReplyBytes))
	if err != nil {
		return 0, nil, nil, err
	}
	return resp.StatusCode, reply, resp.Header, nil
}

// retryable says whether a failed attempt is worth repeating: the server's
// X-Should-Retry decides when present, else the status does (0: no answer).
func retryable(status int, header http.Header) bool {
	switch header.Get("X-Should-Retry") {
	case "true":
		return true
	case "false":
		return false
	}
	return status == 0 || status == http.StatusRequestTimeout || status == http.StatusConflict ||
		status == http.StatusTooManyRequests || status >= 500
}

// retryDelay is the wait before retry attempt+1.
func retryDelay(attempt int, header http.Header) time.Duration {
	if d, ok := retryAfter(header); ok && d > 0 && d <= retryAfterLimit {
		return d
	}
	d := min(retryInitial<<attempt, retryMax)
	return d - time.Duration(rand.Float64()*0.25*float64(d))
}

// retryAfter reads Retry-After-Ms, or Retry-After in seconds or as a date.
func retryAfter(header http.Header) (time.Duration, bool) {
	if ms, err := strconv.ParseFloat(header.Get("Retry-After-Ms"), 64); err == nil {
		return time.Duration(ms * float64(time.Millisecond)), true
	}
	v := header.Get("Retry-After")
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return time.Until(t), true
	}
	return 0, false
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
