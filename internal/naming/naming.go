// Package naming maps upstream item names into weft's single namespace.
//
// An exposed name must satisfy both the MCP tool-name rule (1–128 chars of
// A–Z a–z 0–9 _ - .) and the common LLM function-name rule (1–64 chars of
// A–Z a–z 0–9 _ -). The stricter LLM rule implies the MCP one, so every name
// weft exposes is checked against it; a name that breaks it is shortened
// deterministically to a readable prefix plus a short hash of the full name.
package naming

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// MaxLen is the longest name weft exposes (the LLM function-name limit).
const MaxLen = 64

// hashLen is how many hex digits of the hash a shortened name keeps.
const hashLen = 8

// Join builds the exposed name of item under namespace ns, using sep between
// them. An empty ns exposes the item under its own name. The result is always
// a legal name; when the plain joined name is not, it is shortened.
func Join(ns, sep, item string) string {
	full := item
	if ns != "" {
		full = ns + sep + item
	}
	if Valid(full) {
		return full
	}
	return shorten(full)
}

// Valid reports whether name satisfies both the MCP and the LLM name rules.
func Valid(name string) bool {
	if len(name) == 0 || len(name) > MaxLen {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !legalByte(name[i]) {
			return false
		}
	}
	return true
}

func legalByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// shortLen is how much of the sanitised name a shortened name keeps: the
// rest of MaxLen is '_' and the hash.
const shortLen = MaxLen - 1 - hashLen

// shorten keeps as much of the sanitised name as fits, then appends a hash of
// the original so that two long names sharing a prefix stay distinct.
func shorten(full string) string {
	sum := sha256.Sum256([]byte(full))
	return sanitise(full, shortLen) + "_" + hex.EncodeToString(sum[:])[:hashLen]
}

// sanitise is s with each illegal byte made '_', cut to at most max bytes.
func sanitise(s string, max int) string {
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < max; i++ {
		c := s[i]
		if !legalByte(c) {
			c = '_'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// InNamespace reports whether name could be Join(ns, sep, item) for some
// item. A namespace that is not a legal name itself (an agent's separate
// instance, SERVER@AGENT) only ever appears shortened, so its sanitised
// prefix and the hash are looked for.
func InNamespace(name, ns, sep string) bool {
	if ns == "" || strings.HasPrefix(name, ns+sep) {
		return true
	}
	hashed := len(name) > hashLen+1 && name[len(name)-hashLen-1] == '_'
	return hashed && strings.HasPrefix(name[:len(name)-hashLen-1], sanitise(ns+sep, shortLen))
}
