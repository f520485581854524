package upstream

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestRememberedSchemaVerdictsAreFreshOnes checks that validSchema answers
// a schema it has seen, from any upstream, as a fresh check would, and that
// an input schema and an output schema of the same bytes are told apart.
func TestRememberedSchemaVerdictsAreFreshOnes(t *testing.T) {
	deep := strings.Repeat(`{"a":`, MaxSchemaDepth+1) + "1" + strings.Repeat("}", MaxSchemaDepth+1)
	schemas := []string{
		`{"type":"object","properties":{"a":{"type":"string"}}}`,
		`{"type":"string"}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}`,
		`{"type":7}`,
		deep,
		`{"type":"object","` + refusedKey + `":"the server said no"}`,
	}
	for _, s := range schemas {
		for _, object := range []bool{true, false} {
			name := fmt.Sprintf("object=%v/%.40s", object, s)
			t.Run(name, func(t *testing.T) {
				want := checkRawSchema(json.RawMessage(s), object)
				for i := range 2 { // the first may check, the second is remembered
					got := validSchema(json.RawMessage(s), object)
					if (got == nil) != (want == nil) || (got != nil && got.Error() != want.Error()) {
						t.Fatalf("check %d: validSchema = %v, a fresh check says %v", i, got, want)
					}
				}
			})
		}
	}
	if validSchema(json.RawMessage(`{"type":"string"}`), false) != nil {
		t.Error("a string output schema, checked after the same bytes as an input schema, was refused")
	}
}

// TestSchemaVerdictsAreBounded checks that the cache starts over once it
// holds its maximum, and answers from f again for what it forgot.
func TestSchemaVerdictsAreBounded(t *testing.T) {
	c := verdictCache{max: 3}
	refused := errors.New("refused")
	checks := 0
	f := func() error { checks++; return refused }
	for i := range 3 {
		_ = c.check(keyOf([]byte{byte(i)}, true), f)
	}
	if err := c.check(keyOf([]byte{0}, true), f); !errors.Is(err, refused) || checks != 3 {
		t.Fatalf("a remembered key: err %v after %d checks, want refused after 3", err, checks)
	}
	_ = c.check(keyOf([]byte{3}, true), f) // the fourth: the cache starts over
	if len(c.m) != 1 {
		t.Fatalf("the full cache holds %d answers after a new one, want 1", len(c.m))
	}
	if err := c.check(keyOf([]byte{0}, true), f); !errors.Is(err, refused) || checks != 5 {
		t.Fatalf("a forgotten key: err %v after %d checks, want refused after 5", err, checks)
	}
}
