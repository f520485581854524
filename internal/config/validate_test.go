package config

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
)

func stdio(target string, args ...string) *Server {
	return &Server{Name: "x", Target: target, Args: args}
}

// TestS1CommandRejections checks for every server, human or AI.
func TestS1CommandRejections(t *testing.T) {
	tests := []struct {
		name string
		s    *Server
		want string
	}{
		{"empty", stdio(""), "target is empty"},
		{"blank", stdio("  "), "target is empty"},
		{"semicolon", stdio("npx;rm"), `target contains ";"`},
		{"pipe", stdio("npx|sh"), `target contains "|"`},
		{"ampersand", stdio("npx&"), `target contains "&"`},
		{"backtick", stdio("npx`id`"), "target contains \"`\""},
		{"dollar", stdio("$HOME/bin/x"), `target contains "$"`},
		{"greater", stdio("npx>out"), `target contains ">"`},
		{"less", stdio("npx<in"), `target contains "<"`},
		{"newline", stdio("npx\nrm"), `target contains "\n"`},
		{"carriage return", stdio("npx\rrm"), `target contains "\r"`},
		{"nul", stdio("npx\x00"), `target contains "\x00"`},
		{"arg semicolon", stdio("npx", "-y", "a;b"), `args[1] contains ";"`},
		{"arg pipe", stdio("npx", "a|b"), `args[0] contains "|"`},
		{"arg ampersand", stdio("npx", "a&&b"), `args[0] contains "&"`},
		{"arg backtick", stdio("npx", "`id`"), "args[0] contains \"`\""},
		{"arg dollar", stdio("npx", "$(id)"), `args[0] contains "$"`},
		{"arg redirect", stdio("npx", ">/etc/x"), `args[0] contains ">"`},
		{"arg newline", stdio("npx", "a\nb"), `args[0] contains "\n"`},
		{"url with stdio type", &Server{Name: "x", Target: "https://h/mcp", Type: "stdio"}, "is a URL"},
		{"bad name", &Server{Name: "a b", Target: "npx"}, "name must be"},
		{"empty name", &Server{Target: "npx"}, "name must be"},
		{"long name", &Server{Name: strings.Repeat("a", 65), Target: "npx"}, "name must be"},
		{"bad type", &Server{Name: "x", Target: "npx", Type: "ws"}, `type "ws" is unknown`},
		{"negative timeout", &Server{Name: "x", Target: "npx", TimeoutMS: -1}, "timeout_ms is -1"},
		{"bad glob", &Server{Name: "x", Target: "npx", AllowedTools: []string{"get_["}}, `allowed_tools pattern "get_["`},
		{"bad denied glob", &Server{Name: "x", Target: "npx", DeniedTools: []string{"[]"}}, "denied_tools pattern"},
		{"bad prefix", &Server{Name: "x", Target: "npx", Prefix: ptr("a.b")}, `prefix "a.b"`},
		{"bad protocol", &Server{Name: "x", Target: "npx", ProtocolVersion: "latest"}, "protocol_version"},
		{"bad env name", &Server{Name: "x", Target: "npx", Env: map[string]string{"A=B": "c"}}, "env name"},
		{"header injection", &Server{Name: "x", Target: "https://example.com", Headers: map[string]string{"A": "b\r\nX: y"}}, "line break"},
		{"bad header name", &Server{Name: "x", Target: "https://example.com", Headers: map[string]string{"A B": "c"}}, "header name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.s.Validate(ValidateOptions{Resolve: noDNS})
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("%v does not wrap ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
	_, err := stdio("a|b").Validate(ValidateOptions{})
	if want := `server "x": target contains "|": commands run without a shell; put arguments in args`; err == nil || err.Error() != want {
		t.Errorf("message = %v, want %s", err, want)
	}
}

func ptr[T any](v T) *T { return &v }

func noDNS(context.Context, string) ([]net.IP, error) { return nil, nil }

// TestS1Accepts checks that ordinary commands pass, from a human and from an AI.
func TestS1Accepts(t *testing.T) {
	tests := []*Server{
		stdio("npx", "-y", "@x/y"),
		stdio("npx", "-y", "@modelcontextprotocol/server-filesystem", "/tmp"),
		stdio("/usr/bin/node", "server.js"),
		stdio("node", "--require", "./hook.js", "dist/index.js", "--port", "3000"),
		stdio("uvx", "mcp-server-git"),
		stdio("uvx", "--from", "git+https://github.com/x/y", "mcp-y"),
		stdio("uv", "run", "--with", "mcp", "server.py"),
		stdio("python3", "-m", "mcp_server_time", "-c", "config.yaml"),
		stdio("python", "server.py", "--verbose"),
		stdio("bash", "./start.sh", "-c", "conf"),
		stdio("docker", "run", "-i", "--rm", "mcp/fetch"),
		stdio("deno", "run", "-A", "server.ts"),
		stdio("perl", "-w", "server.pl"),
		stdio("pwsh", "-NoProfile", "-File", "server.ps1", "-c", "x"),
		stdio("env", "FOO=1", "node", "server.js"),
		stdio("C:\\Program Files\\nodejs\\node.exe", "server.js"),
		{Name: "with_tools-1", Target: "npx", AllowedTools: []string{"get_*", "list_?"}, DeniedTools: []string{"delete_[a-z]*"}, Prefix: ptr("")},
	}
	for _, s := range tests {
		for _, ai := range []bool{false, true} {
			if _, err := s.Validate(ValidateOptions{FromAI: ai, Resolve: noDNS}); err != nil {
				t.Errorf("%s %q (ai=%v): %v", s.Target, s.Args, ai, err)
			}
		}
	}
}

// TestS1InlineCode covers the stricter rule for servers an AI adds.
func TestS1InlineCode(t *testing.T) {
	tests := [][]string{
		{"sh", "-c", "id"},
		{"bash", "-c", "id"},
		{"bash", "-lc", "id"},
		{"bash", "-o", "pipefail", "-c", "id"},
		{"zsh", "-c", "id"},
		{"dash", "-c", "id"},
		{"fish", "-c", "id"},
		{"fish", "--command=id"},
		{"/bin/sh", "-c", "id"},
		{"/usr/bin/bash", "--login", "-c", "id"},
		{"npx", "-c", "id"},
		{"npx", "--call", "id"},
		{"npx", "--call=id"},
		{"npx", "-p", "cowsay", "-c", "id"},
		{"npx", "-y", "bash", "-c", "id"},
		{"node", "-e", "1"},
		{"node", "--eval", "1"},
		{"node", "--eval=1"},
		{"node", "-p", "1"},
		{"node", "--print", "1"},
		{"node", "-pe", "1"},
		{"node", "--require", "./x.js", "-e", "1"},
		{"node", "--import", "data:text/javascript,console.log(1)"},
		{"/usr/local/bin/node", "-e", "1"},
		{"python", "-c", "1"},
		{"python3", "-c", "1"},
		{"python3.12", "-c", "1"},
		{"python3", "-Sc", "1"},
		{"python3", "-W", "ignore", "-c", "1"},
		{"/usr/bin/python3", "-c", "1"},
		{"perl", "-e", "1"},
		{"perl", "-E", "say 1"},
		{"perl", "-lne", "print"},
		{"ruby", "-e", "1"},
		{"ruby", "-r", "json", "-e", "1"},
		{"deno", "eval", "1"},
		{"bun", "-e", "1"},
		{"bun", "--eval", "1"},
		{"pwsh", "-Command", "Get-Date"},
		{"pwsh", "-c", "Get-Date"},
		{"pwsh", "-i", "-c", "Get-Date"},
		{"python3", "-W", "-c", "1"},
		{"pwsh", "-NoProfile", "-EncodedCommand", "ZABpAHIA"},
		{"powershell", "-command", "dir"},
		{"powershell.exe", "dir"},
		{"cmd.exe", "/c", "dir"},
		{"php", "-r", "phpinfo()"},
		{"env", "bash", "-c", "id"},
		{"env", "-S", "bash -c id"},
		{"/usr/bin/env", "FOO=1", "python3", "-c", "1"},
		{"timeout", "10", "sh", "-c", "id"},
		{"nohup", "sh", "-c", "id"},
		{"busybox", "sh", "-c", "id"},
		{"uvx", "--from", "x", "python", "-c", "1"},
		{"uv", "run", "python", "-c", "1"},
		{"npm", "exec", "-c", "id"},
		{"pnpm", "dlx", "-c", "id"},
		{"sudo", "-s", "id"},
		{"awk", "BEGIN{print 1}"},
	}
	for _, tt := range tests {
		s := stdio(tt[0], tt[1:]...)
		if _, err := s.Validate(ValidateOptions{Resolve: noDNS}); err != nil {
			t.Errorf("%q refused for a human: %v", tt, err)
		}
		_, err := s.Validate(ValidateOptions{FromAI: true, Resolve: noDNS})
		if err == nil {
			t.Errorf("%q accepted from an AI", tt)
			continue
		}
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "runs code given inline") {
			t.Errorf("%q: error %v", tt, err)
		}
	}
}

type fakeResolver map[string][]string

func (f fakeResolver) resolve(_ context.Context, host string) ([]net.IP, error) {
	addrs, ok := f[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	var ips []net.IP
	for _, a := range addrs {
		ips = append(ips, net.ParseIP(a))
	}
	return ips, nil
}

// TestS2URLs checks with and without security.block_private_urls.
func TestS2URLs(t *testing.T) {
	dns := fakeResolver{
		"localhost":      {"127.0.0.1"},
		"internal.corp":  {"10.1.2.3"},
		"example.com":    {"93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"},
		"mixed.example":  {"93.184.215.14", "192.168.0.5"},
		"rebind.example": {"::ffff:127.0.0.1"},
	}
	const (
		ok      = "ok"
		private = "private" // warning, or error when blocking
		refused = "refused" // always an error
		warn    = "warn"    // always only a warning
	)
	tests := []struct {
		url, typ, want, msg string
	}{
		{"https://example.com/mcp", "", ok, ""},
		{"http://example.com:8080/mcp", "sse", ok, ""},
		{"file:///etc/passwd", "http", refused, `URL scheme "file" is not allowed`},
		{"javascript:alert(1)", "http", refused, `URL scheme "javascript" is not allowed`},
		{"ftp://example.com/x", "sse", refused, `URL scheme "ftp" is not allowed`},
		{"http:///mcp", "", refused, "has no host"},
		{"https://", "", refused, "has no host"},
		{"example.com/mcp", "http", refused, "is not a URL"},
		{"http://127.0.0.1:8080/mcp", "", private, "loopback"},
		{"http://127.1/mcp", "", private, "loopback"},
		{"http://2130706433/mcp", "", private, "loopback"},
		{"http://0x7f000001/mcp", "", private, "loopback"},
		{"http://localhost:3000/mcp", "", private, "loopback"},
		{"http://api.localhost/mcp", "", private, "loopback"},
		{"http://10.0.0.1/mcp", "", private, "RFC 1918"},
		{"http://192.168.1.1/mcp", "", private, "RFC 1918"},
		{"http://172.16.0.1/mcp", "", private, "RFC 1918"},
		{"http://172.31.255.255/mcp", "", private, "RFC 1918"},
		{"http://169.254.169.254/latest/meta-data", "", private, "cloud metadata"},
		{"http://169.254.1.1/", "", private, "link-local"},
		{"http://100.64.0.1/", "", private, "CGNAT"},
		{"http://0.0.0.0:80/", "", private, "unspecified"},
		{"http://[::1]:8080/mcp", "", private, "loopback"},
		{"http://[::]/mcp", "", private, "unspecified"},
		{"http://[fd00::1]/mcp", "", private, "unique local"},
		{"http://[fe80::1%25eth0]/mcp", "", private, "link-local"},
		{"http://[::ffff:10.0.0.1]/mcp", "", private, "RFC 1918"},
		{"http://internal.corp/mcp", "", private, "resolves to 10.1.2.3"},
		{"http://mixed.example/mcp", "", private, "resolves to 192.168.0.5"},
		{"http://rebind.example/mcp", "", private, "loopback"},
		{"http://172.32.0.1/mcp", "", ok, ""},
		{"http://8.8.8.8/mcp", "", ok, ""},
		{"http://nowhere.invalid/mcp", "", warn, "could not resolve"},
	}
	for _, tt := range tests {
		for _, block := range []bool{false, true} {
			s := &Server{Name: "x", Target: tt.url, Type: tt.typ}
			w, err := s.Validate(ValidateOptions{BlockPrivateURLs: block, Resolve: dns.resolve})
			wantErr := tt.want == refused || (tt.want == private && block)
			wantWarn := tt.want == warn || (tt.want == private && !block)
			switch {
			case wantErr && err == nil:
				t.Errorf("%s (block=%v): accepted, warnings %q", tt.url, block, w)
			case !wantErr && err != nil:
				t.Errorf("%s (block=%v): %v", tt.url, block, err)
			case wantErr && (!errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.msg)):
				t.Errorf("%s (block=%v): error %q, want %q", tt.url, block, err, tt.msg)
			case wantWarn && (len(w) != 1 || !strings.Contains(w[0], tt.msg)):
				t.Errorf("%s (block=%v): warnings %q, want one with %q", tt.url, block, w, tt.msg)
			case !wantWarn && !wantErr && len(w) != 0:
				t.Errorf("%s (block=%v): unexpected warnings %q", tt.url, block, w)
			}
		}
	}
}

func TestIsPrivateIP(t *testing.T) {
	for ip, want := range map[string]bool{
		"127.0.0.1": true, "10.9.8.7": true, "192.168.0.1": true, "172.20.0.1": true, "169.254.169.254": true,
		"100.100.0.1": true, "::1": true, "fd12::1": true, "fe80::1": true, "0.0.0.0": true, "::ffff:192.168.1.1": true,
		"64:ff9b::a00:1": true, "8.8.8.8": false, "2001:4860:4860::8888": false, "100.128.0.1": false,
	} {
		if got := IsPrivateIP(net.ParseIP(ip)); got != want {
			t.Errorf("IsPrivateIP(%s) = %v, want %v", ip, got, want)
		}
	}
}

func TestValidateWarnings(t *testing.T) {
	w, err := (&Server{Name: "x", Target: "npx", Headers: map[string]string{"A": "b"}}).Validate(ValidateOptions{})
	if err != nil || len(w) != 1 || !strings.Contains(w[0], "headers are ignored") {
		t.Errorf("stdio with headers: %q %v", w, err)
	}
	w, err = (&Server{Name: "x", Target: "npx -y foo"}).Validate(ValidateOptions{})
	if err != nil || len(w) != 1 || !strings.Contains(w[0], "put its arguments in args") {
		t.Errorf("target with spaces: %q %v", w, err)
	}
	w, err = (&Server{Name: "x", Target: "https://example.com", Args: []string{"a"}}).Validate(ValidateOptions{Resolve: noDNS})
	if err != nil || len(w) != 1 || !strings.Contains(w[0], "ignored") {
		t.Errorf("http with args: %q %v", w, err)
	}
}
