package hub

import (
	"errors"
	"fmt"
)

// Errors callers branch on with errors.Is.
var (
	ErrNotFound      = errors.New("not found")
	ErrExists        = errors.New("already exists")
	ErrDraining      = errors.New("server draining")
	ErrAlreadyDrain  = errors.New("already draining")
	ErrDisconnected  = errors.New("server disconnected")
	ErrConnecting    = errors.New("still connecting")
	ErrUnknownTool   = errors.New("unknown tool")
	ErrUnknownPrompt = errors.New("unknown prompt")
	ErrUnknownURI    = errors.New("unknown resource")
	ErrHubClosed     = errors.New("weft is shutting down")
)

// serverError names the server an error is about.
func serverError(name string, err error) error {
	return fmt.Errorf("%s: %w", name, err)
}
