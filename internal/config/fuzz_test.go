package config

import (
	"testing"
)

// FuzzLoad feeds random bytes to the weft.toml parser, the segment scanner
// the editors use, and the remove/enable edits: none may panic.
func FuzzLoad(f *testing.F) {
	for _, seed := range []string{
		fullExample,
		commented,
		"",
		"[gateway\n",
		"tools = { mcp_servers = { a = { target = \"x\" } } }\n",
		"[tools]\nmcp_servers.a.target = \"y\"\n",
		"[[tools.mcp_servers.a]]\n",
		"[tools.mcp_servers.\"a\\u0000\"]\ntarget = 1\n",
		"a = [[[[[[1]]]]]]\r\n# c\r\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := parse(data, "fuzz.toml")
		if err == nil {
			_ = cfg.validate(data, noDNS)
		}
		segs, err := scanSegments(data)
		if err != nil {
			return
		}
		for _, s := range segs {
			if s.start > s.end || s.end > len(data) {
				t.Fatalf("bad segment %+v for %d bytes", s, len(data))
			}
		}
		for _, name := range []string{"a", "ev", "x"} {
			if out, ok := removeServer(data, segs, name); ok && len(out) > len(data) {
				t.Fatalf("remove grew the file")
			}
		}
		_ = serverLines(data)
	})
}
