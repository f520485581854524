package config

import (
	"reflect"
	"strings"
)

// keysAt lists the keys the table at path (below the file type root) accepts, for unknown-key messages.
// They are read from the toml tags of the Go type that decodes the table, so
// the list can never fall behind a new key. A path step into a map (a server
// name, a model in [prices]) moves to the map's element type.
func keysAt(root reflect.Type, path []string) string {
	t := root
	for _, name := range path {
		t = indirect(t)
		switch t.Kind() {
		case reflect.Map:
			t = t.Elem()
		case reflect.Struct:
			f, ok := fieldByKey(t, name)
			if !ok {
				return ""
			}
			t = f.Type
		default:
			return ""
		}
	}
	if t = indirect(t); t.Kind() != reflect.Struct {
		return ""
	}
	return strings.Join(keysOf(t), ", ")
}

func indirect(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// keysOf lists a struct's TOML keys in declaration order, embedded structs
// inlined as go-toml decodes them.
func keysOf(t reflect.Type) []string {
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, inline := fieldKey(f)
		switch {
		case inline:
			keys = append(keys, keysOf(indirect(f.Type))...)
		case name != "":
			keys = append(keys, name)
		}
	}
	return keys
}

func fieldByKey(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, inline := fieldKey(f)
		if inline {
			if g, ok := fieldByKey(indirect(f.Type), key); ok {
				return g, true
			}
			continue
		}
		if strings.EqualFold(name, key) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// fieldKey is the key a field decodes from ("" for none), or inline for an
// untagged embedded struct.
func fieldKey(f reflect.StructField) (name string, inline bool) {
	tag, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	switch {
	case tag == "-" || !f.IsExported():
		return "", false
	case tag == "" && f.Anonymous:
		return "", true
	case tag == "":
		return f.Name, false
	}
	return tag, false
}
