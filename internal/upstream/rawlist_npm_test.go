package upstream

import (
	"context"
	"reflect"
	"testing"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/testutil"
)

// TestRawListOfTypeScriptServers lists the npm reference servers (their
// tools carry annotations, enums, defaults, nested schemas) both ways:
// each takes the raw path, and its tools and digests are go-sdk's.
func TestRawListOfTypeScriptServers(t *testing.T) {
	for _, bin := range []string{"mcp-server-everything", "mcp-server-memory", "mcp-server-filesystem"} {
		t.Run(bin, func(t *testing.T) {
			cfg := &config.Server{Name: "ts", Type: config.TransportStdio, Target: testutil.NPMBin(t, bin), TimeoutMS: 30_000}
			if bin == "mcp-server-filesystem" {
				cfg.Args = []string{t.TempDir()}
			}
			c, err := Dial(t.Context(), cfg, Options{Logger: quiet()})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close(context.Background()) })
			got, raw, err := c.listToolsRaw(t.Context())
			if err != nil || !raw {
				t.Fatalf("listToolsRaw: raw %v, %v", raw, err)
			}
			want, err := collect(c.session.Tools(t.Context(), nil))
			if err != nil {
				t.Fatal(err)
			}
			rawSchemas(want)
			if len(got) == 0 || !reflect.DeepEqual(got, want) {
				t.Fatalf("raw:\n%s\ngo-sdk:\n%s", toolsJSON(got), toolsJSON(want))
			}
			gotDigests, wantDigests := digests(got), digests(want)
			for i := range got {
				if gotDigests[got[i]] != wantDigests[want[i]] {
					t.Errorf("%s: digests %+v, go-sdk's %+v", got[i].Name, gotDigests[got[i]], wantDigests[want[i]])
				}
			}
		})
	}
}
