package config

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ErrInvalid is wrapped by every validation error, so callers can tell a bad
// entry from an I/O failure with errors.Is(err, ErrInvalid).
var ErrInvalid = errors.New("invalid config")

// invalidError is a one-line validation message that unwraps to ErrInvalid.
type invalidError struct{ msg string }

func (e *invalidError) Error() string { return e.msg }
func (e *invalidError) Unwrap() error { return ErrInvalid }

func invalidf(format string, args ...any) error {
	return &invalidError{msg: fmt.Sprintf(format, args...)}
}

// ValidateOptions tunes Server.Validate.
type ValidateOptions struct {
	// BlockPrivateURLs turns the private-address warning of into an
	// error (security.block_private_urls).
	BlockPrivateURLs bool
	// FromAI holds the entry to the stricter rules for servers an AI asks to
	// add: no shell or interpreter given inline code.
	FromAI bool
	// Resolve looks up a URL host; nil means net.DefaultResolver. Lookups are
	// bounded by two seconds, and a failed lookup is only a warning.
	Resolve func(ctx context.Context, host string) ([]net.IP, error)
}

// resolveTimeout bounds the host lookup of.
const resolveTimeout = 2 * time.Second

// shellMeta are the characters a stdio target or argument may not hold.
const shellMeta = ";|&`$><\n\r\x00"

var (
	nameRE     = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	protocolRE = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
)

// ValidName reports whether name is a valid server name or prefix: 1–64
// characters of A–Z a–z 0–9 _ -.
func ValidName(name string) bool { return nameRE.MatchString(name) }

// Validate checks the entry against the rules for commands and URLs and the
// rules for entries. It returns warnings for things that are allowed but worth
// knowing, and an error wrapping ErrInvalid for the first thing that is wrong.
func (s *Server) Validate(opts ValidateOptions) (warnings []string, err error) {
	if !ValidName(s.Name) {
		return nil, invalidf("server %q: name must be 1-64 characters of A-Z a-z 0-9 _ -; rename it", s.Name)
	}
	typ := s.Transport()
	switch typ {
	case TransportStdio, TransportHTTP, TransportSSE:
	default:
		return nil, invalidf("server %q: type %q is unknown; use stdio, http or sse, or remove type to infer it from target", s.Name, s.Type)
	}
	if err := s.validateFields(); err != nil {
		return nil, err
	}
	if err := s.validateOAuth(typ); err != nil {
		return nil, err
	}
	if err := s.validatePerUser(typ); err != nil {
		return nil, err
	}
	if typ == TransportStdio {
		return s.validateStdio(opts)
	}
	return s.validateURL(typ, opts)
}

// validateFields checks what does not depend on the transport.
func (s *Server) validateFields() error {
	if s.TimeoutMS < 0 {
		return invalidf("server %q: timeout_ms is %d; use a positive number of milliseconds (0 means the default %d)", s.Name, s.TimeoutMS, DefaultTimeoutMS)
	}
	if s.Prefix != nil && *s.Prefix != "" && !ValidName(*s.Prefix) {
		return invalidf("server %q: prefix %q must be 1-64 characters of A-Z a-z 0-9 _ - (or \"\" for no namespace); fix it", s.Name, *s.Prefix)
	}
	for i, pats := range [][]string{s.AllowedTools, s.DeniedTools} {
		field := [...]string{"allowed_tools", "denied_tools"}[i]
		for _, p := range pats {
			if _, err := path.Match(p, ""); err != nil || p == "" {
				return invalidf("server %q: %s pattern %q is not a valid glob; use * ? and [...] only, with brackets closed", s.Name, field, p)
			}
		}
	}
	if s.ProtocolVersion != "" && !protocolRE.MatchString(s.ProtocolVersion) {
		return invalidf("server %q: protocol_version %q is not a YYYY-MM-DD MCP version; fix it or remove it", s.Name, s.ProtocolVersion)
	}
	for k, v := range s.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return invalidf("server %q: env name %q is not valid; names may not be empty or hold '=' or NUL", s.Name, k)
		}
		if strings.ContainsRune(v, 0) {
			return invalidf("server %q: env %s holds a NUL byte; remove it", s.Name, k)
		}
	}
	for k, v := range s.Headers {
		if !validHeaderName(k) {
			return invalidf("server %q: header name %q is not a valid HTTP header name; fix it", s.Name, k)
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			return invalidf("server %q: header %s holds a line break or NUL; remove it", s.Name, k)
		}
	}
	if strings.ContainsAny(s.Cwd, "\n\r\x00") {
		return invalidf("server %q: cwd holds a line break or NUL; fix it", s.Name)
	}
	return nil
}

func validHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range []byte(k) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// validateStdio applies.
func (s *Server) validateStdio(opts ValidateOptions) ([]string, error) {
	var warnings []string
	target := s.Target
	if strings.TrimSpace(target) == "" {
		return nil, invalidf("server %q: target is empty; set it to a command or an http(s) URL", s.Name)
	}
	if strings.Contains(target, "://") {
		return nil, invalidf("server %q: type is stdio but target %q is a URL; set type = \"http\" or \"sse\", or remove type", s.Name, target)
	}
	if i := strings.IndexAny(target, shellMeta); i >= 0 {
		return nil, invalidf("server %q: target contains %q: commands run without a shell; put arguments in args", s.Name, target[i:i+1])
	}
	for n, a := range s.Args {
		if i := strings.IndexAny(a, shellMeta); i >= 0 {
			return nil, invalidf("server %q: args[%d] contains %q: commands run without a shell, so shell syntax cannot work; remove it", s.Name, n, a[i:i+1])
		}
	}
	if strings.TrimSpace(target) != target || strings.ContainsAny(target, " \t") {
		warnings = append(warnings, fmt.Sprintf("server %q: target %q holds spaces; it is run as one program name, so put its arguments in args", s.Name, target))
	}
	if opts.FromAI {
		if what := inlineCode(target, s.Args); what != "" {
			return nil, invalidf("server %q: %s runs code given inline, which a server added by an AI may not do; ask the user to add it", s.Name, what)
		}
	}
	if len(s.Headers) > 0 {
		warnings = append(warnings, fmt.Sprintf("server %q: headers are ignored for a stdio server", s.Name))
	}
	return warnings, nil
}

// validateURL applies.
func (s *Server) validateURL(typ string, opts ValidateOptions) ([]string, error) {
	target := strings.TrimSpace(s.Target)
	if target == "" {
		return nil, invalidf("server %q: target is empty; a %s server needs an http(s) URL", s.Name, typ)
	}
	u, err := url.Parse(target)
	if err != nil {
		return nil, invalidf("server %q: target is not a valid URL (%v); fix it", s.Name, unwrapURLError(err))
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return nil, invalidf("server %q: type is %s but target %q is not a URL; use an http(s) URL or remove type", s.Name, typ, target)
	default:
		return nil, invalidf("server %q: URL scheme %q is not allowed; use http or https", s.Name, u.Scheme)
	}
	host := u.Hostname()
	if host == "" {
		return nil, invalidf("server %q: URL %q has no host; use http(s)://HOST[:PORT]/PATH", s.Name, u.Redacted())
	}
	var warnings []string
	if len(s.Args) > 0 || len(s.Env) > 0 || s.Cwd != "" || s.InheritEnv {
		warnings = append(warnings, fmt.Sprintf("server %q: args, env, cwd and inherit_env are ignored for an %s server", s.Name, typ))
	}
	w, err := s.checkHost(host, opts)
	if err != nil {
		return nil, err
	}
	return append(warnings, w...), nil
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// checkHost refuses or warns about a host that is, or resolves to, a loopback
// or private address.
func (s *Server) checkHost(host string, opts ValidateOptions) ([]string, error) {
	report := func(what, reason string) ([]string, error) {
		if opts.BlockPrivateURLs {
			return nil, invalidf("server %q: URL host %s is a %s address and security.block_private_urls is on; use a public address or turn the setting off", s.Name, what, reason)
		}
		return []string{fmt.Sprintf("server %q: URL host %s is a %s address", s.Name, what, reason)}, nil
	}
	if ip, ok := parseHostIP(host); ok {
		if r := privateReason(ip); r != "" {
			return report(host, r)
		}
		return nil, nil
	}
	if isLocalhostName(host) {
		return report(host, "loopback")
	}
	resolve := opts.Resolve
	if resolve == nil {
		resolve = func(ctx context.Context, h string) ([]net.IP, error) {
			return net.DefaultResolver.LookupIP(ctx, "ip", h)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), resolveTimeout)
	defer cancel()
	ips, err := resolve(ctx, host)
	if err != nil {
		return []string{fmt.Sprintf("server %q: could not resolve %s (%v); the private-address check was skipped", s.Name, host, err)}, nil
	}
	for _, nip := range ips {
		ip, ok := netip.AddrFromSlice(nip)
		if !ok {
			continue
		}
		if r := privateReason(ip.Unmap()); r != "" {
			return report(fmt.Sprintf("%s (resolves to %s)", host, ip.Unmap()), r)
		}
	}
	return nil, nil
}

// IsPrivateIP reports whether ip is loopback, private (RFC 1918, IPv6 ULA),
// link-local, CGNAT (100.64.0.0/10) or unspecified: the addresses
// warns about. Transports can use it to re-check the address they dial.
func IsPrivateIP(ip net.IP) bool {
	a, ok := netip.AddrFromSlice(ip)
	return ok && privateReason(a.Unmap()) != ""
}

var (
	cgnat       = netip.MustParsePrefix("100.64.0.0/10")
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")
	siteLocal   = netip.MustParsePrefix("fec0::/10")
	nat64       = netip.MustParsePrefix("64:ff9b::/96")
	metadata    = netip.MustParseAddr("169.254.169.254")
)

// privateReason names the kind of non-public address ip is, or "".
func privateReason(ip netip.Addr) string {
	ip = ip.WithZone("")
	switch {
	case ip.IsUnspecified(), thisNetwork.Contains(ip):
		return "unspecified"
	case ip.IsLoopback():
		return "loopback"
	case ip == metadata:
		return "link-local (cloud metadata)"
	case ip.IsLinkLocalUnicast():
		return "link-local"
	case ip.Is4() && ip.IsPrivate():
		return "private (RFC 1918)"
	case ip.IsPrivate(), siteLocal.Contains(ip):
		return "private (IPv6 unique local)"
	case cgnat.Contains(ip):
		return "shared (CGNAT 100.64.0.0/10)"
	case nat64.Contains(ip):
		b := ip.As16()
		return privateReason(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
	}
	return ""
}

// parseHostIP parses a URL host as an IP address, including the legacy
// numeric forms (127.1, 0x7f000001, 2130706433, 0177.0.0.1) that some
// resolvers accept.
func parseHostIP(host string) (netip.Addr, bool) {
	host = strings.TrimSuffix(host, ".")
	if ip, err := netip.ParseAddr(host); err == nil {
		return ip.Unmap(), true
	}
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var vals []uint64
	for _, p := range parts {
		v, ok := parseInetPart(p)
		if !ok {
			return netip.Addr{}, false
		}
		vals = append(vals, v)
	}
	var n uint64
	for i, v := range vals {
		if i < len(vals)-1 {
			if v > 0xff {
				return netip.Addr{}, false
			}
			n |= v << (8 * (3 - uint(i)))
			continue
		}
		if v >= 1<<(8*(4-uint(i))) {
			return netip.Addr{}, false
		}
		n |= v
	}
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

// parseInetPart parses one part of a legacy inet_aton address: decimal, 0x
// hexadecimal or 0-prefixed octal.
func parseInetPart(p string) (uint64, bool) {
	base, digits := 10, p
	switch {
	case len(p) > 2 && (p[:2] == "0x" || p[:2] == "0X"):
		base, digits = 16, p[2:]
	case len(p) > 1 && p[0] == '0':
		base, digits = 8, p[1:]
	}
	if digits == "" || strings.ContainsAny(digits, "+-_") {
		return 0, false
	}
	v, err := strconv.ParseUint(digits, base, 32)
	return v, err == nil
}

func isLocalhostName(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	return h == "localhost" || strings.HasSuffix(h, ".localhost")
}
