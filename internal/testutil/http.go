package testutil

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeHTTP serves s over Streamable HTTP on loopback for the test's
// lifetime and returns its endpoint URL.
func ServeHTTP(t testing.TB, s *mcp.Server) string {
	t.Helper()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// FakeServerBinary builds testdata/fakeserver once per test binary and
// returns its path: a stdio MCP server with NewServer's tools.
func FakeServerBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "weft-fakeserver-")
		if buildErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(buildDir, "fakeserver"), "github.com/weft-dev/weft/testdata/fakeserver").CombinedOutput()
		if err != nil {
			buildErr = &buildError{err: err, out: string(out)}
		}
	})
	if buildErr != nil {
		t.Fatalf("build fakeserver: %v", buildErr)
	}
	return filepath.Join(buildDir, "fakeserver")
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }
