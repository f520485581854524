package policy

import (
	"context"
	"net"
	"strings"
	"testing"
)

// TestRefusePrivateDial covers the connect-time half of the private-address rule: a dial to
// loopback fails with the reason; the check runs on the resolved address.
func TestRefusePrivateDial(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	d := net.Dialer{Control: RefusePrivateDial}
	_, err = d.DialContext(context.Background(), "tcp", "localhost:"+strings.Split(ln.Addr().String(), ":")[1])
	if err == nil || !strings.Contains(err.Error(), "block_private_urls") {
		t.Fatalf("dial to localhost: %v, want a block_private_urls refusal", err)
	}
	for addr, private := range map[string]bool{"10.0.0.1:80": true, "169.254.169.254:80": true, "[fd00::1]:443": true, "93.184.216.34:443": false} {
		if got := RefusePrivateDial("tcp", addr, nil) != nil; got != private {
			t.Errorf("%s: refused %v, want %v", addr, got, private)
		}
	}
}
