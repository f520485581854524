package plan

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"
)

// Plan is a persisted DAG of tool calls.
type Plan struct {
	ID          string         `json:"id"`
	Title       string         `json:"title"`
	Description string         `json:"description,omitempty"`
	CreatedAt   time.Time      `json:"created_at"`
	Tags        []string       `json:"tags,omitempty"`
	Variables   map[string]any `json:"variables,omitempty"` // defaults; --var overrides them
	Steps       []Step         `json:"steps"`
	// Metadata is free-form data the plan's author kept with it (mcp-cli's
	// planner writes some); weft keeps it and does not read it.
	Metadata map[string]any `json:"metadata,omitempty"`
}

// Step is one node of the plan: its tool calls run in order once every step
// it depends on has completed.
type Step struct {
	ID        string     `json:"id,omitempty"`
	Index     int        `json:"index"` // 1, 2, …; what depends_on refers to
	Title     string     `json:"title"`
	ToolCalls []ToolCall `json:"tool_calls"`
	DependsOn []int      `json:"depends_on,omitempty"`
	// ResultVariable names the step's result for later steps (${name}).
	ResultVariable string `json:"result_variable,omitempty"`
	Retry          *Retry `json:"retry,omitempty"`
	// OnError is fail (default), continue or fallback.
	OnError OnError `json:"on_error,omitempty"`
	// Fallback is called when every attempt failed and OnError is fallback.
	Fallback *ToolCall `json:"fallback,omitempty"`
}

// ToolCall is one call of a tool by its exposed (namespaced) name. Strings in
// Args may hold ${var} references.
type ToolCall struct {
	ID   string         `json:"id,omitempty"`
	Name string         `json:"name"`
	Args map[string]any `json:"args,omitempty"`
}

// Retry bounds how often a failing step is tried.
type Retry struct {
	// Attempts is the total number of tries, the first included.
	Attempts int `json:"attempts"`
	// Backoff is the wait before the second try; it doubles after each
	// further failure.
	Backoff Duration `json:"backoff,omitempty"`
}

// OnError is a step's failure policy.
type OnError string

// The failure policies of.
const (
	OnErrorFail     OnError = "fail"     // stop scheduling, finish what runs, report
	OnErrorContinue OnError = "continue" // go on with every step that does not depend on this one
	OnErrorFallback OnError = "fallback" // call Fallback instead
)

// Duration is a time.Duration written in JSON as a string such as "500ms"
// (a bare number is read as milliseconds).
type Duration time.Duration

// MarshalJSON writes the duration as a Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON reads "500ms", "2s" or a number of milliseconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var ms json.Number
	if err := json.Unmarshal(b, &ms); err == nil {
		f, err := ms.Float64()
		if err != nil {
			return fmt.Errorf("duration %s is not a number of milliseconds", b)
		}
		*d = Duration(f * float64(time.Millisecond))
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration %s: write it like \"500ms\" or \"2s\"", b)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("duration %q: write it like \"500ms\" or \"2s\"", s)
	}
	*d = Duration(v)
	return nil
}

// Parse decodes a plan from JSON. Numbers keep their exact text (they are
// json.Number), and unknown fields are refused so that a misspelt key such
// as "depends" is not silently ignored.
func Parse(data []byte) (*Plan, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	var p Plan
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("not a valid plan: %v; fix the JSON (the format is in docs/guides/plans.md)", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("not a valid plan: extra data after the plan object; a file holds one plan")
	}
	return &p, nil
}

// Marshal encodes the plan as indented JSON, as it is stored.
func (p *Plan) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode plan %s: %w", p.ID, err)
	}
	return append(b, '\n'), nil
}

// WithVars returns a copy of the plan whose variable defaults are overridden
// (or extended) by vars.
func (p *Plan) WithVars(vars map[string]any) *Plan {
	q := *p
	q.Variables = make(map[string]any, len(p.Variables)+len(vars))
	for k, v := range p.Variables {
		q.Variables[k] = v
	}
	for k, v := range vars {
		q.Variables[k] = v
	}
	return &q
}

// FillDefaults gives the plan an id (from its title) and a creation time
// when it has none.
func (p *Plan) FillDefaults(now time.Time) {
	if p.ID == "" {
		p.ID = NewID(p.Title)
	}
	if p.CreatedAt.IsZero() {
		p.CreatedAt = now.UTC().Truncate(time.Second)
	}
}

// Step returns the step with the given index.
func (p *Plan) Step(index int) (*Step, bool) {
	for i := range p.Steps {
		if p.Steps[i].Index == index {
			return &p.Steps[i], true
		}
	}
	return nil, false
}

// Calls counts the tool calls the plan makes when nothing fails.
func (p *Plan) Calls() int {
	n := 0
	for _, s := range p.Steps {
		n += len(s.ToolCalls)
	}
	return n
}

// Hash identifies what a run depends on: variables and steps, not the title
// or description. Resume refuses a plan whose hash changed.
func (p *Plan) Hash() string {
	b, _ := json.Marshal(struct {
		V map[string]any `json:"v"`
		S []Step         `json:"s"`
	}{p.Variables, p.Steps})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// tools lists every tool a step may call: its calls, then its fallback.
func (s *Step) tools() []string {
	out := make([]string, 0, len(s.ToolCalls)+1)
	for _, c := range s.ToolCalls {
		out = append(out, c.Name)
	}
	if s.Fallback != nil {
		out = append(out, s.Fallback.Name)
	}
	return out
}

// policy returns the effective failure policy.
func (s *Step) policy() OnError {
	if s.OnError == "" {
		return OnErrorFail
	}
	return s.OnError
}

// label names a step in messages: `step 3 "Create auth module"`.
func (s *Step) label() string {
	if s.Title == "" {
		return fmt.Sprintf("step %d", s.Index)
	}
	return fmt.Sprintf("step %d %q", s.Index, s.Title)
}

var (
	idRE      = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$`)
	slugStrip = regexp.MustCompile(`[^a-z0-9]+`)
)

// ValidID reports whether id can name a plan file: letters, digits, _ and -,
// starting with a letter or digit, at most 100 characters.
func ValidID(id string) bool { return idRE.MatchString(id) }

// NewID makes a plan id from a title: a slug of its first words and a short
// random suffix.
func NewID(title string) string {
	slug := strings.Trim(slugStrip.ReplaceAllString(strings.ToLower(title), "-"), "-")
	if len(slug) > 40 {
		slug = strings.TrimRight(slug[:40], "-")
	}
	if slug == "" {
		slug = "plan"
	}
	var b [3]byte
	_, _ = rand.Read(b[:])
	return slug + "-" + hex.EncodeToString(b[:])
}
