package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
)

// The hand-written encoder gives the bytes json.MarshalIndent gives, for
// empty and missing tables and for names that need escaping.
func TestEncodePinsIsMarshalIndent(t *testing.T) {
	odd := []string{"plain", "with space", `q"uote`, `back\slash`, "<html>&", "tab\there", "nl\n", "\x01ctl", "é-unicode", "bad\xffutf8", "line\u2028sep", "del\x7f", ""}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() string { return odd[rng.IntN(len(odd))] + fmt.Sprint(rng.IntN(3)) }
	nested := func() map[string]map[string]string {
		switch rng.IntN(4) {
		case 0:
			return nil
		case 1:
			return map[string]map[string]string{}
		}
		m := map[string]map[string]string{}
		for range rng.IntN(4) {
			in := map[string]string{}
			if rng.IntN(5) == 0 {
				in = nil
			}
			for range rng.IntN(4) {
				if in != nil {
					in[pick()] = pick()
				}
			}
			m[pick()] = in
		}
		return m
	}
	for i := range 500 {
		d := pinsFile{Pins: nested(), Pending: nested(), Claims: nested()}
		if rng.IntN(2) == 0 {
			d.Owners = map[string]string{pick(): pick(), pick(): pick()}
		}
		want, err := json.MarshalIndent(d, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if got := encodePins(d); !bytes.Equal(got, want) {
			t.Fatalf("case %d: encodePins =\n%s\nwant\n%s", i, got, want)
		}
	}
}

// Pins recorded while a save runs are coalesced into the next save; none
// is lost, also when another weft writes the file between two saves (the
// save that skips the re-read must notice and merge).
func TestPinsCoalescedSavesLoseNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), PinsFileName)
	p, err := OpenPins(path, config.PinningStrict, nil)
	if err != nil {
		t.Fatal(err)
	}
	other, err := OpenPins(path, config.PinningStrict, nil)
	if err != nil {
		t.Fatal(err)
	}
	const servers, tools = 40, 20
	var wg sync.WaitGroup
	for s := range servers {
		wg.Go(func() {
			ts := make([]*mcp.Tool, tools)
			hs := make([]string, tools)
			for i := range ts {
				ts[i] = &mcp.Tool{Name: fmt.Sprintf("t%02d", i)}
				hs[i] = fmt.Sprintf("h-%d-%d", s, i)
			}
			p.Filter(fmt.Sprintf("s%02d", s), ts, hs)
			if s%10 == 0 { // another weft pins its own tool between saves
				other.Allow(fmt.Sprintf("other%02d", s), tool("theirs"))
			}
		})
	}
	wg.Wait()
	p.Flush()
	p.Filter("last", []*mcp.Tool{{Name: "t"}}, []string{"h-last"}) // a save after the others' writes
	p.Flush()
	d, err := readPins(path)
	if err != nil {
		t.Fatal(err)
	}
	for s := range servers {
		for i := range tools {
			if got, want := d.Pins[fmt.Sprintf("s%02d", s)][fmt.Sprintf("t%02d", i)], fmt.Sprintf("h-%d-%d", s, i); got != want {
				t.Fatalf("pin of s%02d/t%02d on disk = %q, want %q", s, i, got, want)
			}
		}
		if s%10 == 0 && d.Pins[fmt.Sprintf("other%02d", s)]["echo"] == "" {
			t.Fatalf("the other weft's pin of other%02d was lost", s)
		}
	}
	if d.Pins["last"]["t"] != "h-last" {
		t.Fatal("the last pin was not saved")
	}
}

// OwnWrite tells this weft's own save of the file (which the config
// watcher then need not reload) from another weft's write of it.
func TestPinsOwnWriteTellsOwnSaveFromAnothers(t *testing.T) {
	path := filepath.Join(t.TempDir(), PinsFileName)
	p, err := OpenPins(path, config.PinningStrict, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.OwnWrite() {
		t.Fatal("OwnWrite before any save")
	}
	p.Allow("srv", tool("v1"))
	if !p.OwnWrite() {
		t.Fatal("OwnWrite is false right after this weft's save")
	}
	p.Allow("srv", tool("v2")) // withheld, pending
	other, err := OpenPins(path, config.PinningStrict, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Approve("srv", "echo"); err != nil {
		t.Fatal(err)
	}
	if p.OwnWrite() {
		t.Fatal("OwnWrite is true after another weft's approval replaced the file")
	}
	p.Allow("srv2", tool("x")) // a save that merges the approval
	if !p.OwnWrite() {
		t.Fatal("OwnWrite is false after this weft saved again")
	}
	if err := p.Reload(); err != nil {
		t.Fatal(err)
	}
	if p.OwnWrite() {
		t.Fatal("OwnWrite is true after a reload (the next save must re-read)")
	}
}
