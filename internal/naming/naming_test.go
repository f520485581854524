package naming

import (
	"strings"
	"testing"
)

func TestJoin(t *testing.T) {
	long := strings.Repeat("a", 200)
	tests := []struct {
		name, ns, item string
		want           string // "" means: must be shortened
	}{
		{"plain", "everything", "echo", "everything__echo"},
		{"empty namespace", "", "test_simple_text", "test_simple_text"},
		{"dot in item", "fs", "read.file", ""},
		{"colon in item", "fs", "read:file", ""},
		{"too long", "srv", long, ""},
		{"unicode", "srv", "héllo", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Join(tc.ns, "__", tc.item)
			if !Valid(got) {
				t.Fatalf("Join(%q,%q) = %q is not a legal name", tc.ns, tc.item, got)
			}
			if tc.want != "" && got != tc.want {
				t.Fatalf("Join(%q,%q) = %q, want %q", tc.ns, tc.item, got, tc.want)
			}
			if tc.want == "" && got == tc.ns+"__"+tc.item {
				t.Fatalf("Join(%q,%q) was not shortened", tc.ns, tc.item)
			}
			if again := Join(tc.ns, "__", tc.item); again != got {
				t.Fatalf("Join is not deterministic: %q then %q", got, again)
			}
		})
	}
}

func TestShortenKeepsLongNamesDistinct(t *testing.T) {
	a := Join("srv", "__", strings.Repeat("x", 100)+"a")
	b := Join("srv", "__", strings.Repeat("x", 100)+"b")
	if a == b {
		t.Fatalf("two distinct long names collapsed to %q", a)
	}
	if !strings.HasPrefix(a, "srv__xxx") {
		t.Fatalf("shortened name %q lost its readable prefix", a)
	}
}

func FuzzJoin(f *testing.F) {
	f.Add("srv", "__", "tool")
	f.Add("", ".", strings.Repeat("é", 90))
	f.Fuzz(func(t *testing.T, ns, sep, item string) {
		if got := Join(ns, sep, item); !Valid(got) {
			t.Fatalf("Join(%q,%q,%q) = %q is not legal", ns, sep, item, got)
		}
	})
}

// InNamespace recognises every name Join makes under a namespace, the
// shortened ones of a namespace that is not a legal name (an agent's
// instance, SERVER@AGENT) too, and no name of another namespace.
func TestInNamespace(t *testing.T) {
	long := strings.Repeat("a", 200)
	for _, ns := range []string{"", "fs", "doc@x", "doc@" + long} {
		for _, item := range []string{"echo", "read.file", long} {
			if name := Join(ns, "__", item); !InNamespace(name, ns, "__") {
				t.Errorf("InNamespace(%q, %q) = false; Join made it from item %.10q", name, ns, item)
			}
		}
	}
	for _, tc := range []struct{ name, ns string }{
		{"fs__echo", "doc"},
		{Join("doc@y", "__", "echo"), "doc@x"},
		{"doc_x__echo", "doc@x"}, // no hash: a server named doc_x made it
	} {
		if InNamespace(tc.name, tc.ns, "__") {
			t.Errorf("InNamespace(%q, %q) = true; want false", tc.name, tc.ns)
		}
	}
}
