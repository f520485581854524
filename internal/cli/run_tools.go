package cli

import "github.com/weft-dev/weft/internal/agent"

// The agent shows resource and prompt descriptions next to their names.
var _ agent.ItemDescriber = hubTools{}

// ResourceDescriptions maps each resource URI to its description.
func (a hubTools) ResourceDescriptions() map[string]string {
	out := map[string]string{}
	for _, r := range a.h.Catalog().Resources {
		out[r.Def.URI] = r.Def.Description
	}
	return out
}

// PromptDescriptions maps each exposed prompt name to its description.
func (a hubTools) PromptDescriptions() map[string]string {
	out := map[string]string{}
	for _, p := range a.h.Catalog().Prompts {
		out[p.Name] = p.Def.Description
	}
	return out
}
