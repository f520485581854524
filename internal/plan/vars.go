package plan

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// ref is one ${name.path.0} reference.
type ref struct {
	name string
	path []string
}

// String writes the reference as in a plan: ${name.path}.
func (r ref) String() string {
	if len(r.path) == 0 {
		return "${" + r.name + "}"
	}
	return "${" + r.name + "." + strings.Join(r.path, ".") + "}"
}

// segment is a piece of a template string: literal text or a reference.
type segment struct {
	lit string
	ref *ref
}

var refBodyRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*(\.[^.{}$]+)*$`)

// nameRE is what a variable name must look like.
var nameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// parseTemplate splits s into literals and ${...} references. "$${" is a
// literal "${".
func parseTemplate(s string) ([]segment, error) {
	var out []segment
	var lit strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			lit.WriteString(s)
			break
		}
		if i > 0 && s[i-1] == '$' {
			lit.WriteString(s[:i-1] + "${")
			s = s[i+2:]
			continue
		}
		lit.WriteString(s[:i])
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return nil, fmt.Errorf("%q has an unclosed ${; close it with } (write $${ for a literal ${)", s[i:])
		}
		body := s[i+2 : i+end]
		if !refBodyRE.MatchString(body) {
			return nil, fmt.Errorf("${%s} is not a reference; write ${name} or ${name.field.0}", body)
		}
		if lit.Len() > 0 {
			out = append(out, segment{lit: lit.String()})
			lit.Reset()
		}
		parts := strings.Split(body, ".")
		out = append(out, segment{ref: &ref{name: parts[0], path: parts[1:]}})
		s = s[i+end+1:]
	}
	if lit.Len() > 0 || len(out) == 0 {
		out = append(out, segment{lit: lit.String()})
	}
	return out, nil
}

// refsIn calls fn for every reference in the strings of v.
func refsIn(v any, fn func(ref)) error {
	switch x := v.(type) {
	case string:
		if !strings.Contains(x, "${") {
			return nil
		}
		segs, err := parseTemplate(x)
		if err != nil {
			return err
		}
		for _, s := range segs {
			if s.ref != nil {
				fn(*s.ref)
			}
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if err := refsIn(x[k], fn); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range x {
			if err := refsIn(e, fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// lookupFunc resolves one reference to a value.
type lookupFunc func(ref) (any, error)

// substitute replaces every reference in v. A string that is exactly one
// reference takes the referenced value with its JSON type; a reference
// inside a longer string is interpolated as text.
func substitute(v any, look lookupFunc) (any, error) {
	switch x := v.(type) {
	case string:
		return substituteString(x, look)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			r, err := substitute(e, look)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			r, err := substitute(e, look)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return v, nil
}

func substituteString(s string, look lookupFunc) (any, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	segs, err := parseTemplate(s)
	if err != nil {
		return nil, err
	}
	if len(segs) == 1 && segs[0].ref != nil {
		return look(*segs[0].ref)
	}
	var b strings.Builder
	for _, seg := range segs {
		if seg.ref == nil {
			b.WriteString(seg.lit)
			continue
		}
		val, err := look(*seg.ref)
		if err != nil {
			return nil, err
		}
		b.WriteString(textOf(val))
	}
	return b.String(), nil
}

// substituteArgs resolves the references in a tool call's arguments.
func substituteArgs(args map[string]any, look lookupFunc) (map[string]any, error) {
	if args == nil {
		return map[string]any{}, nil
	}
	v, err := substitute(args, look)
	if err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

// textOf renders a value inside a string: strings as they are, everything
// else as compact JSON.
func textOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// lookupIn resolves r against vars, walking its path through objects (by
// key) and lists (by index).
func lookupIn(vars map[string]any, r ref) (any, error) {
	cur, ok := vars[r.name]
	if !ok {
		return nil, fmt.Errorf("%s: no variable %q", r, r.name)
	}
	for i, key := range r.path {
		next, err := walk(cur, key)
		if err != nil {
			where := r.name
			if i > 0 {
				where += "." + strings.Join(r.path[:i], ".")
			}
			return nil, fmt.Errorf("%s: %s %v", r, where, err)
		}
		cur = next
	}
	return cur, nil
}

// walk takes one step of a path.
func walk(v any, key string) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		e, ok := x[key]
		if !ok {
			return nil, fmt.Errorf("has no field %q (it has: %s)", key, strings.Join(firstKeys(x, 8), ", "))
		}
		return e, nil
	case []any:
		i, err := strconv.Atoi(key)
		if err != nil {
			return nil, fmt.Errorf("is a list; %q is not an index", key)
		}
		if i < 0 || i >= len(x) {
			return nil, fmt.Errorf("has %d items; index %d is out of range", len(x), i)
		}
		return x[i], nil
	}
	return nil, fmt.Errorf("is %s, which has no field %q", kindOf(v), key)
}

func kindOf(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case json.Number, float64, int:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("a %T", v)
}

func firstKeys(m map[string]any, n int) []string {
	keys := sortedKeys(m)
	if len(keys) > n {
		keys = append(keys[:n], "…")
	}
	return keys
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ParseVar reads a --var value. When the plan's default for the name is a
// string, the value stays a string; otherwise JSON is decoded (3, true,
// {"a":1}, "quoted") and anything else is a string.
func ParseVar(p *Plan, name, value string) any {
	if def, ok := p.Variables[name]; ok {
		if _, isString := def.(string); isString {
			return value
		}
	}
	if v, err := decodeJSON([]byte(value)); err == nil {
		return v
	}
	return value
}

// decodeJSON decodes one JSON value, keeping numbers exact.
func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("extra data after JSON value")
	}
	return v, nil
}

// stepRefs lists, per step position, the variable names its calls (and
// fallback) refer to.
func stepRefs(p *Plan) [][]string {
	out := make([][]string, len(p.Steps))
	for i := range p.Steps {
		s := &p.Steps[i]
		seen := map[string]bool{}
		add := func(r ref) {
			if !seen[r.name] {
				seen[r.name] = true
				out[i] = append(out[i], r.name)
			}
		}
		for _, c := range s.ToolCalls {
			_ = refsIn(map[string]any(c.Args), add)
		}
		if s.Fallback != nil {
			_ = refsIn(map[string]any(s.Fallback.Args), add)
		}
	}
	return out
}
