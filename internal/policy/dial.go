package policy

import (
	"fmt"
	"net"
	"syscall"

	"github.com/weft-dev/weft/internal/config"
)

// RefusePrivateDial is a net.Dialer Control function that refuses to connect
// to a loopback, private or link-local address. With
// security.block_private_urls it re-checks, at connect time, the address a
// URL's host resolved to, so a name that passed validation cannot later be
// pointed at the local network (DNS rebinding).
func RefusePrivateDial(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		host = address
	}
	if ip := net.ParseIP(host); ip != nil && config.IsPrivateIP(ip) {
		return fmt.Errorf("refusing to connect to %s: a private address, and security.block_private_urls is on", host)
	}
	return nil
}
