package clients

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// member is one key of a JSON object, its value kept as written, so an edit
// keeps the order and content of everything it does not touch.
type member struct {
	key string
	val json.RawMessage
}

// parseObject reads a JSON object into its members, in file order. Empty
// input is an empty object.
func parseObject(data []byte) ([]member, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, err
		}
		out = append(out, member{key: key, val: val})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("text after the JSON object")
	}
	return out, nil
}

// get returns the value of key, nil when absent.
func get(ms []member, key string) json.RawMessage {
	for _, m := range ms {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// set replaces key's value in place, or appends it.
func set(ms []member, key string, val json.RawMessage) []member {
	for i := range ms {
		if ms[i].key == key {
			ms[i].val = val
			return ms
		}
	}
	return append(ms, member{key: key, val: val})
}

// encodeObject writes members as a compact JSON object.
func encodeObject(ms []member) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.val)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// marshal encodes v without HTML escaping (commands and URLs stay legible).
func marshal(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // the values here are plain structs of strings
	return bytes.TrimSpace(b.Bytes())
}

// setServer writes entry under servers[name] in the JSON document data,
// keeping every other key, and returns the document indented by two spaces.
func setServer(data []byte, serversKey, name string, entry json.RawMessage) ([]byte, error) {
	top, err := parseObject(data)
	if err != nil {
		return nil, err
	}
	servers, err := parseObject(get(top, serversKey))
	if err != nil {
		return nil, fmt.Errorf("%q: %v", serversKey, err)
	}
	servers = set(servers, name, entry)
	top = set(top, serversKey, encodeObject(servers))
	var compact, out bytes.Buffer
	if err := json.Compact(&compact, encodeObject(top)); err != nil {
		return nil, err
	}
	if err := json.Indent(&out, compact.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// jsonServer is one entry in the shape each JSON client documents.
type jsonServer struct {
	Type      string   `json:"type,omitempty"`
	Command   string   `json:"command,omitempty"`
	Args      []string `json:"args,omitempty"`
	URL       string   `json:"url,omitempty"`
	ServerURL string   `json:"serverUrl,omitempty"`
	// Env is written (empty) for Claude Code, as `claude mcp add` does.
	Env *map[string]string `json:"env,omitempty"`
}

// jsonEntry renders e for the client's format.
func jsonEntry(f format, e Entry) json.RawMessage {
	s := jsonServer{Command: e.Command, Args: e.Args}
	if e.URL != "" {
		s = jsonServer{URL: e.URL}
	}
	switch f {
	case claudeJSON, vscodeJSON:
		s.Type = "stdio"
		if e.URL != "" {
			s.Type = "http"
		} else if f == claudeJSON {
			s.Env = &map[string]string{}
		}
	case windsurfJSON:
		s.URL, s.ServerURL = "", e.URL
	}
	return marshal(s)
}

// jsonServersKey is the key of the object holding servers.
func jsonServersKey(f format) string {
	if f == vscodeJSON {
		return "servers"
	}
	return "mcpServers"
}

// jsonServers reads the servers object of a client's JSON file.
func jsonServers(data []byte, f format) (map[string]jsonServer, error) {
	top, err := parseObject(data)
	if err != nil {
		return nil, err
	}
	raw := get(top, jsonServersKey(f))
	if raw == nil {
		return nil, nil
	}
	var out map[string]jsonServer
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	return out, nil
}
