package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/weft-dev/weft/internal/hub"
)

// encodedCatalogStatus is the encoding of a catalog's part of the status
// (every listed and search-only name, the clashes, each server's count).
// A client waiting for a start polls the status (the bench every 5 ms) far
// more often than the catalog changes, and with thousands of tools that
// part is most of each answer.
type encodedCatalogStatus struct {
	cat *hub.Catalog
	// tail is the JSON of Status after its servers: from the comma after
	// them to the closing brace and the encoder's newline.
	tail []byte
}

// serversKey opens an encoded Status whose servers are not yet written.
const serversKey = `{"servers":`

// statusJSON encodes the Status of cat and servers as json.Encoder would.
func (g *Gateway) statusJSON(cat *hub.Catalog, servers []hub.ServerStatus) ([]byte, error) {
	tail, err := g.catalogStatusJSON(cat)
	if err != nil {
		return nil, err
	}
	list, err := json.Marshal(servers)
	if err != nil {
		return nil, fmt.Errorf("encode the servers' status: %w", err)
	}
	body := make([]byte, 0, len(serversKey)+len(list)+len(tail))
	body = append(append(append(body, serversKey...), list...), tail...)
	return body, nil
}

// catalogStatusJSON returns the tail of the status for cat, encoded at the
// first request after the catalog changed.
func (g *Gateway) catalogStatusJSON(cat *hub.Catalog) ([]byte, error) {
	if e := g.statusTail.Load(); e != nil && e.cat == cat {
		return e.tail, nil
	}
	b, err := json.Marshal(catalogStatusOf(cat)) // {"servers":null,...}
	if err != nil {
		return nil, fmt.Errorf("encode the catalog's status: %w", err)
	}
	rest, ok := bytes.CutPrefix(b, []byte(serversKey+"null"))
	if !ok {
		return nil, fmt.Errorf("encode the catalog's status: it begins %.20q", b)
	}
	tail := append(rest, '\n')
	g.statusTail.Store(&encodedCatalogStatus{cat: cat, tail: tail})
	return tail, nil
}
