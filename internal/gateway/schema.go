package gateway

import (
	"github.com/google/jsonschema-go/jsonschema"
)

// inputSchema derives a built-in tool's input schema from its Go type (the
// json and jsonschema struct tags); refine adds what tags cannot say, such
// as enums and minimums. The schema stays open to keys it does not name,
// as the tools always were: a client sending an extra key is not refused.
func inputSchema[T any](refine func(props map[string]*jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		// Only an unsupported Go type gets here, which the built-ins' tests
		// would show; an empty object schema keeps the tool usable.
		return &jsonschema.Schema{Type: "object"}
	}
	s.AdditionalProperties = nil
	if refine != nil {
		refine(s.Properties)
	}
	return s
}

// atLeast is a minimum for an integer property.
func atLeast(n float64) *float64 { return &n }
