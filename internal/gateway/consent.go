package gateway

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
)

// DefaultApprovalTimeout bounds how long weft waits for the human to answer
// an mcp_manage approval request; no answer means no.
const DefaultApprovalTimeout = 5 * time.Minute

// ErrNotApproved is wrapped by every refusal of the supervised consent flow:
// declined, cancelled, unanswered, or no elicitation support.
var ErrNotApproved = errors.New("not approved")

// askApproval asks the human behind the session, through an MCP elicitation
// request, to approve exactly what is described. Anything but an explicit
// acceptance is a refusal wrapping ErrNotApproved.
func askApproval(ctx context.Context, ss *mcp.ServerSession, timeout time.Duration, message string) error {
	peer, ok := askerFrom(ctx)
	if !ok {
		if ss == nil {
			return fmt.Errorf("%w: no client session to ask", ErrNotApproved)
		}
		peer = sessionPeer{ss: ss, caps: &mcp.ClientCapabilities{}}
		if ip := ss.InitializeParams(); ip != nil && ip.Capabilities != nil {
			peer.caps, peer.version = ip.Capabilities, ip.ProtocolVersion
		}
	}
	if peer.caps.Elicitation == nil {
		return fmt.Errorf("%w: the connected client does not support elicitation, so the user cannot be asked; the user can add it with `weft mcp add`", ErrNotApproved)
	}
	if timeout <= 0 {
		timeout = DefaultApprovalTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := peer.Elicit(ctx, &mcp.ElicitParams{
		Message: message,
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"approve": map[string]any{"type": "boolean", "title": "Approve", "description": "true to allow exactly this", "default": false},
			},
			"required": []string{"approve"},
		},
	})
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("%w: the user did not answer within %s", ErrNotApproved, timeout)
	case err != nil:
		return fmt.Errorf("%w: asking the user failed: %v", ErrNotApproved, err)
	case res.Action != "accept":
		return fmt.Errorf("%w: the user answered %q", ErrNotApproved, res.Action)
	case res.Content["approve"] != true:
		return fmt.Errorf("%w: the user did not tick approve", ErrNotApproved)
	}
	return nil
}

// describeServer renders an entry exactly and untruncated for the human to
// judge: the command line with each argument quoted, or the URL, plus the
// environment and header names and values the AI asked for.
func describeServer(s *config.Server) string {
	var b strings.Builder
	if s.Transport() == config.TransportStdio {
		fmt.Fprintf(&b, "command: %s", strconv.Quote(s.Target))
		for _, a := range s.Args {
			b.WriteString(" " + strconv.Quote(a))
		}
	} else {
		fmt.Fprintf(&b, "%s URL: %s", s.Transport(), s.Target)
	}
	writePairs(&b, "env", s.Env)
	writePairs(&b, "header", s.Headers)
	if s.Cwd != "" {
		fmt.Fprintf(&b, "\ncwd: %s", strconv.Quote(s.Cwd))
	}
	return b.String()
}

func writePairs(b *strings.Builder, what string, m map[string]string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(b, "\n%s: %s=%s", what, k, strconv.Quote(m[k]))
	}
}

// askedBy names the client behind a session, for the audit log.
func askedBy(ss *mcp.ServerSession) string {
	if ss == nil {
		return "unknown"
	}
	if ip := ss.InitializeParams(); ip != nil && ip.ClientInfo != nil {
		return ip.ClientInfo.Name + " " + ip.ClientInfo.Version
	}
	return "unknown client"
}
