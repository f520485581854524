package gateway

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/weft-dev/weft/internal/upstream"
)

// ErrRefusedMessage ends a stdio session whose client sent a message weft
// refuses: a batch, an ambiguous object, or one over the limit.
var ErrRefusedMessage = errors.New("message refused")

// stdinGuard passes a stdio client's messages through one line at a time,
// each bounded by max bytes and checked like an HTTP body. Over stdio there
// is no status code to answer with, so a refused message ends the session
// with the reason logged, rather than leaving the client waiting.
func stdinGuard(rc io.ReadCloser, max int, logger *slog.Logger) io.ReadCloser {
	lr := upstream.NewLineReader(rc, max, func(line []byte) ([]byte, error) {
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			if msg := CheckMessage(trimmed); msg != "" {
				return nil, fmt.Errorf("%w: %s", ErrRefusedMessage, msg)
			}
		}
		return line, nil
	})
	return &loggedRefusal{LineReader: lr, logger: logger}
}

// loggedRefusal logs why the session ends when a message is refused.
type loggedRefusal struct {
	*upstream.LineReader
	logger *slog.Logger
}

func (l *loggedRefusal) Read(p []byte) (int, error) {
	n, err := l.LineReader.Read(p)
	if errors.Is(err, ErrRefusedMessage) || errors.Is(err, upstream.ErrMessageTooLarge) {
		l.logger.Error("stdio client message refused; ending the session", "reason", err.Error())
	}
	return n, err
}
