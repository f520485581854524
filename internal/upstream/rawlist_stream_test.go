package upstream

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRawListReadsPastTheStreamsOtherMessages: a Streamable HTTP server
// that, while it answers tools/list, sends a log message and asks weft for
// its roots on the list's own stream (before the result) is listed by the
// raw path all the same: the roots request is answered (with an error: a
// list has no client to ask) rather than left to hang the list, and the
// tools and their digests are go-sdk's.
func TestRawListReadsPastTheStreamsOtherMessages(t *testing.T) {
	s := listServer("")
	asked := make(chan error, 4)
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				ss := req.GetSession().(*mcp.ServerSession)
				_ = ss.Log(ctx, &mcp.LoggingMessageParams{Level: "error", Data: "listing"})
				_, err := ss.ListRoots(ctx, nil)
				asked <- err
			}
			return next(ctx, method, req)
		}
	})
	c := dialHTTPMode(t, s, nil)
	drain(asked) // the connect's own list
	ctx := context.Background()
	got, raw, err := c.listToolsRaw(ctx)
	if err != nil || !raw {
		t.Fatalf("listToolsRaw: raw %v, err %v; want the raw list", raw, err)
	}
	if len(asked) == 0 {
		t.Fatal("the server's roots request was not answered before the list ended")
	}
	if err := <-asked; err == nil || !strings.Contains(err.Error(), "no client") {
		t.Errorf("roots/list during a list answered with %v, want weft's error that no client is waiting", err)
	}
	checkListedAsGoSDK(t, c, got)
}

// drain empties ch of what is already in it.
func drain(ch chan error) {
	for len(ch) > 0 {
		<-ch
	}
}
