package upstream

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrUpstreamGone reports a request that failed because the upstream's
// connection ended under it (the process crashed or exited, or the stream
// broke). The SDK says only "EOF" or "connection closed".
var ErrUpstreamGone = errors.New("the upstream closed the connection (crashed, exited or dropped); weft reconnects it")

// connectionEnded are the errors a request gets when the connection ends
// under it; which one depends on who noticed first (reader, writer, SDK).
var connectionEnded = []error{io.EOF, io.ErrUnexpectedEOF, io.ErrClosedPipe, os.ErrClosed, syscall.EPIPE, mcp.ErrConnectionClosed}

// explain names what a bare transport error means for the caller.
func explain(err error) error {
	if err == nil {
		return nil
	}
	for _, e := range connectionEnded {
		if errors.Is(err, e) {
			return fmt.Errorf("%w: %w", ErrUpstreamGone, err)
		}
	}
	return err
}
