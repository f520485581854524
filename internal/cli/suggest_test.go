package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestUnknownSubcommandFailsWithSuggestion: a mistyped subcommand, at the
// top or under a group, is an error naming the closest command, not help
// and exit 0; a group without arguments still shows its help.
func TestUnknownSubcommandFailsWithSuggestion(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"srve"}, `unknown command "srve" for "weft" (did you mean "serve"?)`},
		{[]string{"mcp", "lst"}, `unknown command "lst" for "weft mcp" (did you mean "list"?)`},
		{[]string{"client", "ad", "cursor"}, `(did you mean "add"?)`},
		{[]string{"mcp", "zzzzzz"}, `unknown command "zzzzzz" for "weft mcp"; see`},
	} {
		var out bytes.Buffer
		a := &app{stdout: &out, stderr: &out}
		root := a.rootCommand()
		root.SetArgs(c.args)
		err := root.Execute()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("weft %v: %v, want an error containing %q", c.args, err, c.want)
		}
	}
	var out bytes.Buffer
	a := &app{stdout: &out, stderr: &out}
	root := a.rootCommand()
	root.SetArgs([]string{"mcp"})
	if err := root.Execute(); err != nil || !strings.Contains(out.String(), "Available Commands") {
		t.Errorf("weft mcp: %v, %q; want its help", err, out.String())
	}
}

func TestDidYouMean(t *testing.T) {
	names := []string{"everything", "memory", "filesystem"}
	for name, want := range map[string]string{
		"everythin": ` (did you mean "everything"?)`,
		"memroy":    ` (did you mean "memory"?)`,
		"fs":        "",
		"github":    "",
		"memory":    "",
	} {
		if got := didYouMean(name, names); got != want {
			t.Errorf("didYouMean(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestDefaultLogLevel: serve and mcp-server keep info; one-shot commands
// such as mcp list and plan show log at warn; plan run stays warn too.
func TestDefaultLogLevel(t *testing.T) {
	a := &app{}
	root := a.rootCommand()
	for path, want := range map[string]string{
		"serve": "info", "mcp-server": "info", "run": "info", "chat": "info",
		"mcp list": "warn", "mcp get": "warn", "mcp add": "warn", "plan show": "warn", "plan run": "warn", "client list": "warn",
	} {
		cmd, _, err := root.Find(strings.Fields(path))
		if err != nil {
			t.Fatal(err)
		}
		if got := defaultLogLevel(cmd); got != want {
			t.Errorf("%s: %s, want %s", path, got, want)
		}
	}
}
