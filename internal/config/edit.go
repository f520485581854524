package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"

	"github.com/pelletier/go-toml/v2/unstable"
)

// Edits to weft.toml are minimal: the file is cut into line-aligned
// segments, one per top-level expression (table header, key = value, or
// comment line, each with the blank lines that follow it), and only the
// segments of the server being changed are touched. Everything else is kept
// byte for byte. The result is parsed again before it is written, atomically.

// segment is one top-level expression of a TOML file and the lines it spans.
type segment struct {
	start, end int           // byte range, from a line start to the next segment
	kind       unstable.Kind // Table, ArrayTable, KeyValue or Comment
	path       []string      // full key path; nil for a comment
	line       int           // 1-based line of start
	val        [2]int        // byte range of the value of a KeyValue
}

// scanSegments cuts data into segments. It fails when data is not TOML.
func scanSegments(data []byte) ([]segment, error) {
	p := unstable.Parser{KeepComments: true}
	p.Reset(data)
	var (
		segs          []segment
		table         []string
		lastOff, line = 0, 1
	)
	for p.NextExpression() {
		e := p.Expression()
		sg := segment{kind: e.Kind}
		off := 0
		switch e.Kind {
		case unstable.Comment:
			off = int(e.Raw.Offset)
		case unstable.Table, unstable.ArrayTable:
			keys, first := keyParts(e)
			table, sg.path, off = keys, keys, first
		case unstable.KeyValue:
			keys, _ := keyParts(e)
			sg.path = append(slices.Clone(table), keys...)
			off = int(e.Raw.Offset)
			if v := e.Value(); v != nil {
				sg.val = [2]int{int(v.Raw.Offset), int(v.Raw.Offset + v.Raw.Length)}
			}
		default:
			continue
		}
		sg.start = bytes.LastIndexByte(data[:off], '\n') + 1
		if n := len(segs); n > 0 && segs[n-1].start == sg.start {
			continue
		}
		line += bytes.Count(data[lastOff:sg.start], []byte("\n"))
		lastOff, sg.line = sg.start, line
		segs = append(segs, sg)
	}
	if err := p.Error(); err != nil {
		return nil, err
	}
	for i := range segs {
		segs[i].end = len(data)
		if i+1 < len(segs) {
			segs[i].end = segs[i+1].start
		}
	}
	return segs, nil
}

// keyParts returns the decoded parts of an expression's key and the offset
// of its first part.
func keyParts(e *unstable.Node) ([]string, int) {
	var keys []string
	first := -1
	it := e.Key()
	for it.Next() {
		n := it.Node()
		if first < 0 {
			first = int(n.Raw.Offset)
		}
		keys = append(keys, string(n.Data))
	}
	return keys, max(first, 0)
}

func serverPath(name string) []string { return []string{"tools", "mcp_servers", name} }

func hasPrefix(path, prefix []string) bool {
	return len(path) >= len(prefix) && slices.Equal(path[:len(prefix)], prefix)
}

// parsesForEdit refuses to edit content that does not parse: an edit must
// never turn a broken file into a differently broken one.
func parsesForEdit(data []byte, path string) error {
	if _, err := parse(data, path); err != nil {
		return fmt.Errorf("refusing to edit a file that does not parse: %w", err)
	}
	return nil
}

// AddServer appends a [tools.mcp_servers.NAME] table for s to the weft.toml
// at path, creating the file (0600, in a 0700 directory) if needed, under the
// file's cross-process lock. The rest of the file, comments included, is kept
// byte for byte. It fails if the file already defines a server of that name,
// or if s is invalid (no DNS lookups are made; call Validate for the address
// checks).
func AddServer(path string, s *Server) error {
	return editFile(path, func(data []byte) ([]byte, error) { return AddServerTo(data, path, s) })
}

// AddServerTo returns data (the content of the weft.toml at path) with a
// [tools.mcp_servers.NAME] table for s appended. The error wraps
// ErrServerExists when the file already defines that name.
func AddServerTo(data []byte, path string, s *Server) ([]byte, error) {
	if s == nil {
		return nil, errors.New("no server to add")
	}
	noLookup := func(context.Context, string) ([]net.IP, error) { return nil, nil }
	if _, err := s.Validate(ValidateOptions{Resolve: noLookup}); err != nil {
		return nil, err
	}
	if err := parsesForEdit(data, path); err != nil {
		return nil, err
	}
	if cfg, _ := parse(data, path); cfg.Servers[s.Name] != nil {
		return nil, fmt.Errorf("server %q %w in %s; remove it first or choose another name", s.Name, ErrServerExists, path)
	}
	text, err := renderServer(s)
	if err != nil {
		return nil, err
	}
	out := appendTable(data, text)
	cfg, err := parse(out, path)
	if err != nil || cfg.Servers[s.Name] == nil || cfg.Servers[s.Name].Target != s.Target {
		return nil, fmt.Errorf("cannot add server %q to %s: the file's layout does not allow appending a [tools.mcp_servers.%s] table (%v); add it by hand", s.Name, path, tomlKey(s.Name), err)
	}
	return out, nil
}

// appendTable returns data with a TOML table's text appended after a blank
// line, in the file's own line endings.
func appendTable(data []byte, text string) []byte {
	crlf := bytes.Contains(data, []byte("\r\n"))
	nl := []byte("\n")
	if crlf {
		nl = []byte("\r\n")
		text = string(bytes.ReplaceAll([]byte(text), []byte("\n"), nl))
	}
	out := slices.Clone(data)
	if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, nl...)
	}
	if len(bytes.TrimSpace(out)) > 0 && !bytes.HasSuffix(out, append(slices.Clone(nl), nl...)) {
		out = append(out, nl...)
	}
	return append(out, text...)
}

// RemoveServer deletes server name from the weft.toml at path, under the
// file's cross-process lock (see RemoveServerFrom).
func RemoveServer(path, name string) error {
	return editFile(path, func(data []byte) ([]byte, error) { return RemoveServerFrom(data, path, name) })
}

// RemoveServerFrom returns data (the content of the weft.toml at path)
// without server name: its table, its sub-tables (such as
// [tools.mcp_servers.NAME.env]), any other line that sets a key under it, and
// the comment lines directly above its table when a blank line sets them
// apart from what precedes them. Everything else is kept byte for byte. The
// error wraps ErrServerNotFound when the file does not define name.
func RemoveServerFrom(data []byte, path, name string) ([]byte, error) {
	if err := parsesForEdit(data, path); err != nil {
		return nil, err
	}
	var out []byte
	found := false
	if len(data) > 0 {
		segs, err := scanSegments(data)
		if err != nil {
			return nil, fmt.Errorf("refusing to edit %s: %v; fix the TOML first", path, err)
		}
		out, found = removeServer(data, segs, name)
	}
	if !found {
		return nil, fmt.Errorf("server %q %w in %s; weft mcp list shows where each server comes from", name, ErrServerNotFound, path)
	}
	cfg, err := parse(out, path)
	if err != nil || cfg.Servers[name] != nil {
		return nil, fmt.Errorf("cannot remove server %q from %s cleanly (%v); remove it by hand", name, path, err)
	}
	return out, nil
}

// removeServer returns data without the segments of server name.
func removeServer(data []byte, segs []segment, name string) ([]byte, bool) {
	prefix := serverPath(name)
	owned := make([]bool, len(segs))
	found := false
	for i, s := range segs {
		if s.kind != unstable.Comment && hasPrefix(s.path, prefix) {
			owned[i], found = true, true
		}
	}
	if !found {
		return nil, false
	}
	// Comments between two segments of the server belong to it.
	for i, s := range segs {
		if s.kind != unstable.Comment {
			continue
		}
		p, q := i-1, i+1
		for p >= 0 && segs[p].kind == unstable.Comment {
			p--
		}
		for q < len(segs) && segs[q].kind == unstable.Comment {
			q++
		}
		owned[i] = p >= 0 && q < len(segs) && owned[p] && owned[q]
	}
	// Comment lines right above the server, set apart from what precedes
	// them by a blank line (or the start of the file), describe it.
	for i := range segs {
		if !owned[i] || (i > 0 && owned[i-1]) {
			continue
		}
		j := i - 1
		for j >= 0 && segs[j].kind == unstable.Comment && !owned[j] && bytes.Count(data[segs[j].start:segs[j].end], []byte("\n")) <= 1 {
			j--
		}
		if j < i-1 && (j < 0 || endsWithBlankLine(data[segs[j].start:segs[j].end])) {
			for k := j + 1; k < i; k++ {
				owned[k] = true
			}
		}
	}
	out := make([]byte, 0, len(data))
	if len(segs) > 0 {
		out = append(out, data[:segs[0].start]...)
	}
	for i, s := range segs {
		if !owned[i] {
			out = append(out, data[s.start:s.end]...)
		}
	}
	if owned[len(segs)-1] {
		// The file ended with the server: do not leave blank lines behind.
		for bytes.HasSuffix(out, []byte("\n\n")) || bytes.HasSuffix(out, []byte("\n\r\n")) {
			out = out[:len(out)-1]
			out = bytes.TrimSuffix(out, []byte("\r"))
		}
	}
	return out, true
}

// endsWithBlankLine reports whether a segment's text ends with an empty line.
func endsWithBlankLine(t []byte) bool {
	t = bytes.TrimSuffix(bytes.TrimSuffix(t, []byte("\n")), []byte("\r"))
	i := bytes.LastIndexByte(t, '\n')
	return i >= 0 && len(bytes.TrimSpace(t[i+1:])) == 0
}

// SetServerEnabled sets enabled = true|false on server name in the weft.toml
// at path, changing only that value (or adding one line under the server's
// table header). The server must be defined as a [tools.mcp_servers.NAME]
// table.
func SetServerEnabled(path, name string, enabled bool) error {
	return editFile(path, func(data []byte) ([]byte, error) { return SetServerEnabledIn(data, path, name, enabled) })
}

// SetServerEnabledIn returns data (the content of the weft.toml at path)
// with enabled = true|false set on server name.
func SetServerEnabledIn(data []byte, path, name string, enabled bool) ([]byte, error) {
	if err := parsesForEdit(data, path); err != nil {
		return nil, err
	}
	cfg, _ := parse(data, path)
	if cfg == nil || cfg.Servers[name] == nil {
		return nil, fmt.Errorf("server %q %w in %s; weft mcp list shows where each server comes from", name, ErrServerNotFound, path)
	}
	segs, err := scanSegments(data)
	if err != nil {
		return nil, fmt.Errorf("refusing to edit %s: %v; fix the TOML first", path, err)
	}
	val := "false"
	if enabled {
		val = "true"
	}
	prefix := serverPath(name)
	var out []byte
	for _, s := range segs {
		if s.kind == unstable.KeyValue && slices.Equal(s.path, append(slices.Clone(prefix), "enabled")) {
			out = slices.Concat(data[:s.val[0]], []byte(val), data[s.val[1]:])
			break
		}
	}
	if out == nil {
		for _, s := range segs {
			if s.kind == unstable.Table && slices.Equal(s.path, prefix) {
				eol := bytes.IndexByte(data[s.start:], '\n')
				if eol < 0 {
					out = slices.Concat(data, []byte("\nenabled = "+val+"\n"))
				} else {
					at := s.start + eol + 1
					nl := "\n"
					if eol > 0 && data[s.start+eol-1] == '\r' {
						nl = "\r\n"
					}
					out = slices.Concat(data[:at], []byte("enabled = "+val+nl), data[at:])
				}
				break
			}
		}
	}
	if out == nil {
		return nil, fmt.Errorf("server %q in %s is not written as a [tools.mcp_servers.%s] table; set enabled by hand", name, path, tomlKey(name))
	}
	cfg, err = parse(out, path)
	if err != nil || cfg.Servers[name] == nil || cfg.Servers[name].IsEnabled() != enabled {
		return nil, fmt.Errorf("cannot set enabled on server %q in %s cleanly (%v); edit it by hand", name, path, err)
	}
	return out, nil
}
