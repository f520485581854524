package hub

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/upstream"
)

// fakeApprovals records claims and answers approved owners from a map.
type fakeApprovals struct {
	approved map[string]string
	claims   []string
}

func (f *fakeApprovals) ApprovedOwner(name string) string { return f.approved[name] }
func (f *fakeApprovals) Claim(name, server, owner string) {
	f.claims = append(f.claims, name+" "+server+" "+owner)
}

// buildWorld is one hub's build state: its owners, approvals and catalog.
type buildWorld struct {
	own  *owners
	appr *fakeApprovals
	cat  *Catalog
}

func newBuildWorld() *buildWorld {
	a := &fakeApprovals{approved: map[string]string{}}
	return &buildWorld{own: &owners{approvals: a}, appr: a}
}

// catalogShape is everything a catalog build decides, for comparison.
type catalogShape struct {
	Tools     []string
	Defs      []*mcp.Tool
	Lookup    []string
	Clashes   []string
	Prompts   []string
	Resources []string
	Templates []string
}

func shapeOf(c *Catalog) catalogShape {
	var s catalogShape
	for _, t := range c.Tools {
		s.Tools = append(s.Tools, fmt.Sprintf("%s %s %s %v %x", t.Name, t.Server, t.Original, t.Listed, t.Digest[:4]))
		s.Defs = append(s.Defs, t.Def)
		if c.tools[t.Name] != t {
			s.Lookup = append(s.Lookup, "not found by name: "+t.Name)
		}
	}
	s.Lookup = append(s.Lookup, fmt.Sprint(len(c.tools)))
	s.Clashes = c.Clashes
	for _, p := range c.Prompts {
		s.Prompts = append(s.Prompts, p.Name+" "+p.Server)
	}
	for _, r := range c.Resources {
		s.Resources = append(s.Resources, r.Def.URI+" "+r.Server)
	}
	for _, t := range c.Templates {
		s.Templates = append(s.Templates, t.Def.URITemplate+" "+t.Server)
	}
	return s
}

// randomInventory lists tools from a small set of names, so that servers
// clash, some names hold the separator, some are reserved or refused, and
// now and then one is listed twice.
func randomInventory(r *rand.Rand) upstream.Inventory {
	names := []string{"t1", "t2", "t3", "x__t", "b__t1", "search", "z"}
	inv := upstream.Inventory{Digests: map[*mcp.Tool]upstream.Digest{}}
	for _, n := range names {
		if r.IntN(3) == 0 {
			continue
		}
		t := &mcp.Tool{Name: n, Description: fmt.Sprint(r.IntN(2)), InputSchema: map[string]any{"type": "object"}}
		inv.Tools = append(inv.Tools, t)
		d := upstream.Digest{Def: [32]byte{byte(r.IntN(256))}}
		if r.IntN(15) == 0 {
			d.Refused = "invalid schema"
		}
		inv.Digests[t] = d
		if r.IntN(20) == 0 {
			inv.Tools = append(inv.Tools, t)
		}
	}
	if r.IntN(4) == 0 {
		inv.Prompts = []*mcp.Prompt{{Name: "p"}}
		inv.Resources = []*mcp.Resource{{URI: "file:///r"}}
		inv.Templates = []*mcp.ResourceTemplate{{URITemplate: "file:///{x}"}}
	}
	return inv
}

// TestBuildOntoIsTheFullBuild drives two hubs' builds through the same
// random sequences of sources (servers arriving, re-listing, leaving,
// draining; names clashing, reserved, refused; caps, filters, approvals):
// one builds as the hub does, onto the last catalog where it can, the other
// always in full. Every catalog, owner and claim must be the same.
func TestBuildOntoIsTheFullBuild(t *testing.T) {
	servers := []string{"a", "b", "c", "d", "e", "f"}
	namespaces := map[string][]string{"a": {"a"}, "b": {"b", ""}, "c": {"c", "x"}, "d": {"d", "b__t1"}, "e": {"e", "x"}, "f": {"f"}}
	reserved := map[string]bool{"a__search": true, "search": true}
	onto, steps := 0, 0
	for seed := range uint64(400) {
		r := rand.New(rand.NewPCG(seed, 1))
		maxTools := []int{0, 0, 0, 4, 12, 1000}[r.IntN(6)]
		ns := map[string]string{}
		for _, s := range servers {
			opts := namespaces[s]
			ns[s] = opts[r.IntN(len(opts))]
		}
		roster := maps.Clone(ns)
		inv := map[string]upstream.Inventory{}
		up := map[string]bool{}
		full, inc := newBuildWorld(), newBuildWorld()
		for range 12 {
			steps++
			evolve(r, servers, roster, ns, inv, up, []*fakeApprovals{full.appr, inc.appr})
			var sources []source
			for _, s := range servers {
				if !up[s] {
					continue
				}
				src := source{name: s, namespace: ns[s], inv: inv[s]}
				if s == "f" && r.IntN(3) == 0 {
					src.denied = []string{"t*"}
				}
				sources = append(sources, src)
			}
			roster := maps.Clone(roster)
			full.cat = buildFull(full.cat, sources, "__", maxTools, reserved, full.own, roster)
			c := buildOnto(inc.cat, sources, "__", maxTools, reserved, inc.own, roster)
			if c != nil {
				onto++
			} else {
				c = buildFull(inc.cat, sources, "__", maxTools, reserved, inc.own, roster)
			}
			inc.cat = c
			if got, want := shapeOf(inc.cat), shapeOf(full.cat); !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d: built onto the last catalog:\n%+v\nin full:\n%+v", seed, got, want)
			}
			if !maps.Equal(inc.own.first, full.own.first) {
				t.Fatalf("seed %d: owners %v, in full %v", seed, inc.own.first, full.own.first)
			}
			sort.Strings(inc.appr.claims)
			sort.Strings(full.appr.claims)
			if !slices.Equal(inc.appr.claims, full.appr.claims) {
				t.Fatalf("seed %d: claims %v, in full %v", seed, inc.appr.claims, full.appr.claims)
			}
		}
	}
	if onto < steps/5 {
		t.Errorf("built onto the last catalog %d times in %d builds; the sequences do not exercise it", onto, steps)
	}
}

// evolve changes the world between two builds: mostly servers arriving,
// sometimes one re-listing, leaving (or draining: up but not configured),
// coming back, or an approval changing.
func evolve(r *rand.Rand, servers []string, roster, ns map[string]string, inv map[string]upstream.Inventory, up map[string]bool, approvals []*fakeApprovals) {
	s := servers[r.IntN(len(servers))]
	switch k := r.IntN(10); {
	case k < 6:
		if !up[s] {
			up[s], inv[s] = true, randomInventory(r)
		}
	case k == 6 && up[s] && r.IntN(2) == 0:
		inv[s] = randomInventory(r)
	case k == 6 && up[s] && len(inv[s].Tools) > 0: // the same definitions, a refusal turned
		relisted := inv[s]
		relisted.Digests = maps.Clone(relisted.Digests)
		t := relisted.Tools[r.IntN(len(relisted.Tools))]
		d := relisted.Digests[t]
		d.Refused = map[bool]string{true: "", false: "invalid schema"}[d.Refused != ""]
		relisted.Digests[t] = d
		inv[s] = relisted
	case k == 7:
		up[s] = false
	case k == 8:
		if _, ok := roster[s]; ok {
			delete(roster, s) // removed; draining while still up
		} else {
			roster[s] = ns[s]
		}
	default:
		name := []string{"t1", "b__t1", "x__t1", "x__t2", "x__z", "c__t2"}[r.IntN(6)]
		for _, a := range approvals {
			a.approved[name] = s
		}
	}
}

// BenchmarkCatalogArrivals builds the catalog as 100 servers of 20 tools
// arrive in batches of 8 (as in a fan-in start): onto the last catalog, as
// the hub builds, and in full each time.
func BenchmarkCatalogArrivals(b *testing.B) {
	var all []source
	roster := map[string]string{}
	for i := range 100 {
		name := fmt.Sprintf("s%03d", i)
		inv := inventoryOf("tool", 20)
		inv.Digests = map[*mcp.Tool]upstream.Digest{}
		for _, t := range inv.Tools {
			inv.Digests[t] = upstream.Digest{}
		}
		all = append(all, source{name: name, namespace: name, inv: inv})
		roster[name] = name
	}
	// The arrival order is not the name order.
	order := rand.New(rand.NewPCG(1, 2)).Perm(len(all))
	for _, bc := range []struct {
		name  string
		build func(*Catalog, []source, string, int, map[string]bool, *owners, map[string]string) *Catalog
	}{{"onto", buildCatalog}, {"full", buildFull}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				own := &owners{}
				var cat *Catalog
				up := map[int]bool{}
				for start := 0; start < len(order); start += 8 {
					for _, i := range order[start:min(start+8, len(order))] {
						up[i] = true
					}
					var sources []source
					for i, s := range all {
						if up[i] {
							sources = append(sources, s)
						}
					}
					cat = bc.build(cat, sources, "__", 0, nil, own, roster)
				}
				if len(cat.Tools) != 2000 {
					b.Fatalf("built %d tools", len(cat.Tools))
				}
			}
		})
	}
}

// naturalByScan is natural as it was first written: a scan of the roster.
func naturalByScan(name, sep string, roster map[string]string) string {
	best, bestLen, shared := "", -1, false
	for server, ns := range roster {
		if ns == "" || !strings.HasPrefix(name, ns) || !strings.HasPrefix(name[len(ns):], sep) {
			continue
		}
		switch {
		case len(ns) > bestLen:
			best, bestLen, shared = server, len(ns), false
		case len(ns) == bestLen:
			shared = true
		}
	}
	if shared {
		return ""
	}
	return best
}

// TestNaturalIsTheRosterScan: looking a name's prefixes up by namespace
// finds the owner the scan of every configured server finds, separators
// overlapping, repeated or empty, namespaces shared, nested or empty.
func TestNaturalIsTheRosterScan(t *testing.T) {
	parts := []string{"a", "b", "_", "__", "a_", "a__b", ""}
	word := func(r *rand.Rand) string {
		var sb strings.Builder
		for range r.IntN(5) {
			sb.WriteString(parts[r.IntN(len(parts))])
		}
		return sb.String()
	}
	for seed := range uint64(3000) {
		r := rand.New(rand.NewPCG(seed, 3))
		roster := map[string]string{}
		for i := range r.IntN(6) {
			roster[fmt.Sprint("s", i)] = word(r)
		}
		sep := []string{"__", "_", "", "."}[r.IntN(4)]
		spaces := namespaces(roster)
		for range 20 {
			name := word(r)
			if got, want := spaces.natural(name, sep), naturalByScan(name, sep, roster); got != want {
				t.Fatalf("natural(%q, %q) over %v = %q, the scan gives %q", name, sep, roster, got, want)
			}
		}
	}
}
