package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxDepth bounds how deeply a client's message may nest; deeper ones are
// refused before any decoder recurses into them.
const maxDepth = 1000

// maxSafeID is the largest integer id every JSON implementation holds
// exactly (2^53 - 1); larger ones come back changed.
const maxSafeID = 1<<53 - 1

// Refusal is why a client's message is refused, with the JSON-RPC code
// that says so.
type Refusal struct {
	Code    int64
	Message string
}

// CheckMessage returns why a JSON-RPC message is refused, or "".
func CheckMessage(body []byte) string {
	if r := checkMessage(body); r != nil {
		return r.Message
	}
	return ""
}

// checkMessage refuses what weft would misread or could not answer
// faithfully: invalid JSON, a batch, anything but an object, nesting past
// maxDepth, an object holding two keys that differ only in case (which
// case-insensitive decoders read differently from weft), and an id that is
// neither a string nor an exact integer in the safe range (the SDK would
// answer with a different id).
func checkMessage(body []byte) *Refusal {
	bad, _ := checkEnvelope(body)
	return bad
}

// checkEnvelope is checkMessage that also returns what the relays read of
// a message it accepts (rawEnvelope), found by the same walk; nil when the
// message took the tokenizer's path (it is not valid JSON: go-sdk answers
// it).
func checkEnvelope(body []byte) (*Refusal, *rawEnvelope) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return &Refusal{jsonrpc.CodeInvalidRequest, "JSON-RPC batches are not accepted; send one message per request"}, nil
	}
	if json.Valid(body) {
		scan := scanValid(body)
		if bad := checkValid(body, trimmed, scan); bad != nil {
			return bad, nil
		}
		return nil, &scan.env
	}
	return checkTokens(body, trimmed), nil
}

// checkTokens is the check of a body that is not valid JSON: the tokenizer
// finds which fault comes first. A body with bytes after its object passes;
// the SDK refuses it.
func checkTokens(body, trimmed []byte) *Refusal {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber() // a number out of float64's range (1e700) is valid JSON, not a fault
	key, dup, err := scanKeys(dec, 0)
	switch {
	case err == errTooDeep:
		return tooDeep()
	case err != nil:
		return &Refusal{jsonrpc.CodeParseError, "message is not valid JSON"}
	case dup:
		return ambiguous(key)
	}
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return notObject()
	}
	return nil
}

// checkValid is checkMessage for a body that is valid JSON, in one walk.
func checkValid(body, trimmed []byte, scan *validScan) *Refusal {
	switch {
	case scan.tooDeep:
		return tooDeep()
	case scan.dup:
		return ambiguous(scan.dupKey)
	case trimmed[0] != '{':
		return notObject()
	}
	id := scan.id
	if !scan.idExact {
		var head struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(body, &head)
		id = head.ID
	}
	if !idOK(id) {
		return &Refusal{jsonrpc.CodeInvalidRequest, fmt.Sprintf("id %s refused: use a string or an integer between -%d and %d", truncateID(id), maxSafeID, maxSafeID)}
	}
	return nil
}

func tooDeep() *Refusal {
	return &Refusal{jsonrpc.CodeInvalidRequest, fmt.Sprintf("message nested deeper than %d levels", maxDepth)}
}

func ambiguous(key string) *Refusal {
	return &Refusal{jsonrpc.CodeInvalidRequest, fmt.Sprintf("ambiguous message: key %q appears more than once (keys are compared ignoring case)", key)}
}

func notObject() *Refusal {
	return &Refusal{jsonrpc.CodeInvalidRequest, "a JSON-RPC message must be a JSON object"}
}

// idOK accepts a missing or null id, a string, or an exact integer within
// ±maxSafeID (no fraction, exponent, sign + or leading zero).
func idOK(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" || s[0] == '"' {
		return true
	}
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || (digits[0] == '0' && len(digits) > 1) || strings.TrimLeft(digits, "0123456789") != "" {
		return false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return err == nil && n <= maxSafeID && n >= -maxSafeID
}

func truncateID(raw json.RawMessage) string {
	if len(raw) > 40 {
		return string(raw[:40]) + "…"
	}
	return string(raw)
}

var errTooDeep = fmt.Errorf("nested deeper than %d levels", maxDepth)

// scanKeys walks one JSON value and returns the first key of an object that
// repeats another key of the same object, ignoring case (dup reports one
// was found: the key may be "").
func scanKeys(dec *json.Decoder, depth int) (key string, dup bool, err error) {
	tok, err := dec.Token()
	if err != nil {
		return "", false, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return "", false, nil
	}
	if depth >= maxDepth {
		return "", false, errTooDeep
	}
	seen := map[string]bool{}
	for dec.More() {
		if d == '{' {
			k, err := dec.Token()
			if err != nil {
				return "", false, err
			}
			key := strings.ToLower(fmt.Sprint(k))
			if seen[key] {
				return fmt.Sprint(k), true, nil
			}
			seen[key] = true
		}
		if key, dup, err := scanKeys(dec, depth+1); err != nil || dup {
			return key, dup, err
		}
	}
	_, err = dec.Token() // the closing delimiter
	return "", false, err
}

// errorResponse is the JSON-RPC answer to a refused message, with id (the
// zero ID when the message's own id cannot be trusted). The SDK omits an
// unset id, but JSON-RPC wants "id": null there, so it is added.
func errorResponse(r *Refusal, id jsonrpc.ID) []byte {
	b, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: r.Code, Message: "weft: " + r.Message}})
	var fields map[string]json.RawMessage
	if err != nil || json.Unmarshal(b, &fields) != nil {
		return []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"weft: message refused"}}`)
	}
	if _, ok := fields["id"]; ok {
		return b
	}
	fields["id"] = json.RawMessage("null")
	out, _ := json.Marshal(fields)
	return out
}

// refuseMessage answers a refused HTTP request with 400 and the JSON-RPC
// error, and closes the connection.
func refuseMessage(w http.ResponseWriter, r *Refusal) {
	w.Header().Set("Connection", "close")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(errorResponse(r, jsonrpc.ID{}))
}
