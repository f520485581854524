package depth

import (
	"errors"
	"testing"

	"github.com/weft-dev/weft/internal/config"
)

func TestNext(t *testing.T) {
	def := config.DefaultMaxDelegationDepth
	tests := []struct {
		name             string
		own, inBand, max int
		want             int
		refused          bool
	}{
		{"first hop", 0, 0, 3, 1, false},
		{"in-band deeper", 0, 2, 3, 3, false},
		{"own deeper", 2, 1, 3, 3, false},
		{"at the limit", 3, 0, 3, 0, true},
		{"in-band at the limit", 0, 3, 3, 0, true},
		{"max 0 is the default, not unlimited", def, 0, 0, 0, true},
		{"below the default with max 0", def - 1, 0, 0, def, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Next(tt.own, tt.inBand, tt.max)
			var de *Error
			if tt.refused != errors.As(err, &de) || got != tt.want {
				t.Fatalf("Next(%d, %d, %d) = %d, %v; want %d, refused=%v", tt.own, tt.inBand, tt.max, got, err, tt.want, tt.refused)
			}
			if tt.refused && !errors.Is(err, ErrExceeded) {
				t.Fatalf("refusal %v does not wrap ErrExceeded", err)
			}
		})
	}
}

func TestParseAndFromMeta(t *testing.T) {
	for in, want := range map[string]int{"2": 2, "": 0, "-1": 0, "x": 0} {
		if got := Parse(in); got != want {
			t.Errorf("Parse(%q) = %d, want %d", in, got, want)
		}
	}
	for _, c := range []struct {
		v    any
		want int
	}{{float64(2), 2}, {2, 2}, {"3", 3}, {"x", 0}, {float64(-1), 0}, {nil, 0}} {
		if got := FromMeta(map[string]any{MetaKey: c.v}); got != c.want {
			t.Errorf("FromMeta(%v) = %d, want %d", c.v, got, c.want)
		}
	}
}
