package upstream

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
)

// failLikeNpx is the test binary as a command that fails before speaking
// MCP, as npx does for a package the registry does not have.
func failLikeNpx() {
	fmt.Fprintln(os.Stderr, "npm error code E404")
	fmt.Fprintln(os.Stderr, "npm error 404 Not Found - GET https://registry.npmjs.org/@x%2fnope - Not found")
	fmt.Fprint(os.Stderr, "npm error A complete log of this run can be found in: /tmp/log") // unterminated
	os.Exit(1)
}

// A stdio command that exits during the handshake fails the dial with its
// exit status and the last lines of its stderr; one that never answers in
// MCP gets no "<nil>" in its error.
func TestDialFailureQuotesTheChildsStderr(t *testing.T) {
	for _, c := range []struct {
		name, env string
		want      []string
	}{
		{"exits", "UPSTREAM_TEST_FAIL", []string{"exited during the handshake (exit status 1)",
			"npm error 404 Not Found", "A complete log of this run"}},
		{"cat", "UPSTREAM_TEST_CAT", []string{"connect child:"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := stdioServer()
			cfg.Env = map[string]string{c.env: "1"}
			cfg.TimeoutMS = 3000
			_, err := Dial(context.Background(), cfg, Options{Logger: quiet()})
			if err == nil {
				t.Fatal("dial succeeded")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("dial error %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "<nil>") || strings.Contains(err.Error(), "\n") {
				t.Errorf("dial error %q is not one clear line", err)
			}
		})
	}
}

func TestStderrTailKeepsTheLastLines(t *testing.T) {
	r := newStderrRelay(quiet())
	for i := range 8 {
		fmt.Fprintf(r, "line %d\n", i)
	}
	fmt.Fprint(r, "partial")
	got := strings.Join(r.lastLines(), ",")
	if want := "line 4,line 5,line 6,line 7,partial"; got != want {
		t.Fatalf("tail = %q, want %q", got, want)
	}
}
