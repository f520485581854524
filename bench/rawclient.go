//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// rawRevision is the revision the raw client speaks: a stateful session,
// which every go-sdk server and weft's face accept.
const rawRevision = "2025-11-25"

// rawClient is a client that speaks just enough Streamable HTTP (a
// 2025-11-25 session) to page through tools/list, decoding of each page
// only what a client must to use it: the envelope's id and error, each
// tool's name, and nextCursor. It skips what go-sdk's client does on top
// (a typed Tool per entry with its schemas decoded, then filterValidTools
// re-encoding and decoding every input schema), so that a list's cost is
// the server's and the transport's. Requests are framed by go-sdk's own
// jsonrpc encoder.
type rawClient struct {
	url, session string
	hc           *http.Client
	id           int64
}

// rawPage is what the raw client decodes of a tools/list response.
type rawPage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"` // set on a request or notification of the server's
	Error  *jsonrpc.Error  `json:"error"`
	Result struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
		NextCursor string `json:"nextCursor"`
	} `json:"result"`
}

// isResponse reports whether p is a response, not a message of the
// server's own (a notification, or a request, which has an id too).
func (p *rawPage) isResponse() bool { return len(p.ID) > 0 && p.Method == "" }

// dialRaw opens a session at url: initialize, then notifications/initialized.
func dialRaw(ctx context.Context, url string) (*rawClient, error) {
	rc := &rawClient{url: url, hc: &http.Client{Transport: httpTransport}}
	if _, err := rc.call(ctx, "initialize", rawInitialize()); err != nil {
		return nil, err
	}
	if err := rc.notify(ctx, "notifications/initialized"); err != nil {
		rc.close() // the session initialize opened
		return nil, err
	}
	return rc, nil
}

// listAll lists every tool, following nextCursor, and says how many.
func (rc *rawClient) listAll(ctx context.Context) (int, error) { return listPages(ctx, rc.call) }

// listPages lists every tool through call, following nextCursor, and says
// how many.
func listPages(ctx context.Context, call func(context.Context, string, any) (*rawPage, error)) (int, error) {
	n, cursor := 0, ""
	for {
		params := map[string]string{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		page, err := call(ctx, "tools/list", params)
		if err != nil {
			return n, err
		}
		for _, t := range page.Result.Tools {
			if t.Name == "" {
				return n, errors.New("tools/list: a tool without a name")
			}
		}
		n += len(page.Result.Tools)
		if cursor = page.Result.NextCursor; cursor == "" {
			return n, nil
		}
	}
}

// close ends the session (DELETE), as a client going away does.
func (rc *rawClient) close() {
	if rc.session == "" {
		return
	}
	req, err := http.NewRequest(http.MethodDelete, rc.url, nil)
	if err != nil {
		return
	}
	rc.headers(req)
	if resp, err := rc.hc.Do(req); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// rawRequest is request number n of method with params.
func rawRequest(n int64, method string, params any) (*jsonrpc.Request, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	id, err := jsonrpc.MakeID(float64(n))
	if err != nil {
		return nil, err
	}
	return &jsonrpc.Request{ID: id, Method: method, Params: raw}, nil
}

// rawInitialize is the raw client's initialize params.
func rawInitialize() map[string]any {
	return map[string]any{"protocolVersion": rawRevision, "capabilities": map[string]any{}, "clientInfo": map[string]string{"name": "weft-bench-raw", "version": "1.0.0"}}
}

// call sends one request and decodes its response.
func (rc *rawClient) call(ctx context.Context, method string, params any) (*rawPage, error) {
	rc.id++
	req, err := rawRequest(rc.id, method, params)
	if err != nil {
		return nil, err
	}
	resp, err := rc.post(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("%s to %s: %w", method, rc.url, err)
	}
	defer resp.Body.Close()
	page, err := readResponse(resp)
	if err == nil && page.Error != nil {
		err = page.Error
	}
	if err != nil {
		return nil, fmt.Errorf("%s to %s: %w", method, rc.url, err)
	}
	return page, nil
}

// notify sends one notification.
func (rc *rawClient) notify(ctx context.Context, method string) error {
	resp, err := rc.post(ctx, &jsonrpc.Request{Method: method})
	if err != nil {
		return fmt.Errorf("%s to %s: %w", method, rc.url, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

// post sends msg and returns the response once its status is a success,
// keeping the session id the server assigns.
func (rc *rawClient) post(ctx context.Context, msg jsonrpc.Message) (*http.Response, error) {
	body, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rc.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	rc.headers(req)
	resp, err := rc.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		rc.session = id
	}
	if resp.StatusCode >= 300 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		return nil, fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(msg))
	}
	return resp, nil
}

func (rc *rawClient) headers(req *http.Request) {
	req.Header.Set("Mcp-Protocol-Version", rawRevision)
	if rc.session != "" {
		req.Header.Set("Mcp-Session-Id", rc.session)
	}
}

// readResponse decodes the response from a JSON body or, on an SSE stream,
// from the first event that is a response (one with an id).
func readResponse(resp *http.Response) (*rawPage, error) {
	var page rawPage
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return &page, json.NewDecoder(resp.Body).Decode(&page)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: "))
		if !ok {
			continue
		}
		page = rawPage{}
		if err := json.Unmarshal(data, &page); err != nil {
			return nil, err
		}
		if page.isResponse() {
			return &page, nil
		}
	}
	return nil, errors.Join(errors.New("the stream ended without a response"), sc.Err())
}
