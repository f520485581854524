//go:build !darwin && !windows

package oauth

import (
	"errors"
	"os"
	"os/exec"
)

func browserCommand(u string) (string, []string, error) {
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return "", nil, errors.New("no display")
	}
	path, err := exec.LookPath("xdg-open")
	if err != nil {
		return "", nil, errors.New("xdg-open not found")
	}
	return path, []string{u}, nil
}
