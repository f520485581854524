package oauth

import (
	"fmt"
	"net"
	"net/url"
	"os/exec"
)

// parseLoopback accepts only http://127.0.0.1, [::1] or localhost URLs with
// a port, per RFC 8252's loopback redirect.
func parseLoopback(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Port() == "" {
		return nil, fmt.Errorf("login callback %q is not a loopback http URL with a port", raw)
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); (ip == nil || !ip.IsLoopback()) && host != "localhost" {
		return nil, fmt.Errorf("login callback %q is not on a loopback address", raw)
	}
	return u, nil
}

// openBrowser starts the system's URL opener directly (no shell) and does
// not wait for it.
func openBrowser(u string) error {
	name, args, err := browserCommand(u)
	if err != nil {
		return err
	}
	cmd := exec.Command(name, args...)
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
