// Package tooldigest computes the pin of a tool definition: the digest that
// tool pinning records and compares. It is a leaf so that the upstream
// connection (which computes each digest once, when a tool is listed) and
// pinning (which compares them) share one formula without depending on
// each other.
package tooldigest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Pin is a SHA-256 of a tool's name, description, input schema and
// annotations, hex-encoded. Changing it changes every pin on disk.
func Pin(t *mcp.Tool) string {
	b, _ := json.Marshal(struct {
		Name        string               `json:"name"`
		Description string               `json:"description"`
		InputSchema any                  `json:"inputSchema"`
		Annotations *mcp.ToolAnnotations `json:"annotations"`
	}{t.Name, t.Description, t.InputSchema, t.Annotations})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
