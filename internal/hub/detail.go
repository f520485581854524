package hub

// ToolRef names one exposed tool and says whether it is within the cap.
type ToolRef struct {
	Name     string `json:"name"`
	Original string `json:"original"`
	Listed   bool   `json:"listed"`
}

// ServerDetail is `weft mcp get`: one server's status and what it exposes.
type ServerDetail struct {
	ServerStatus
	ExposedTools []ToolRef `json:"exposed_tools"`
	ResourceURIs []string  `json:"resource_uris"`
	TemplateURIs []string  `json:"resource_templates"`
	PromptNames  []string  `json:"prompt_names"`
}

// Detail returns the status of server name and the items it contributes to
// the current catalog.
func (h *Hub) Detail(name string) (ServerDetail, error) {
	st, err := h.Get(name)
	if err != nil {
		return ServerDetail{}, err
	}
	d := ServerDetail{ServerStatus: st, ExposedTools: []ToolRef{}, ResourceURIs: []string{}, TemplateURIs: []string{}, PromptNames: []string{}}
	cat := h.Catalog()
	for _, t := range cat.Tools {
		if t.Server == name {
			d.ExposedTools = append(d.ExposedTools, ToolRef{Name: t.Name, Original: t.Original, Listed: t.Listed})
		}
	}
	for _, r := range cat.Resources {
		if r.Server == name {
			d.ResourceURIs = append(d.ResourceURIs, r.Def.URI)
		}
	}
	for _, t := range cat.Templates {
		if t.Server == name {
			d.TemplateURIs = append(d.TemplateURIs, t.Def.URITemplate)
		}
	}
	for _, p := range cat.Prompts {
		if p.Server == name {
			d.PromptNames = append(d.PromptNames, p.Name)
		}
	}
	return d, nil
}
