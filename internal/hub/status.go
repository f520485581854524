package hub

import "time"

// ServerStatus is what `weft mcp list` shows of one server (SPEC G5).
type ServerStatus struct {
	Name            string    `json:"name"`
	Transport       string    `json:"transport"`
	Target          string    `json:"target"`
	Status          Status    `json:"status"`
	Tools           int       `json:"tools"`
	Resources       int       `json:"resources"`
	Prompts         int       `json:"prompts"`
	InFlight        int64     `json:"in_flight"`
	LastError       string    `json:"last_error,omitempty"`
	ConnectedAt     time.Time `json:"connected_at,omitzero"`
	ServerName      string    `json:"server_name,omitempty"`
	ServerVersion   string    `json:"server_version,omitempty"`
	ProtocolVersion string    `json:"protocol_version,omitempty"`
}

func (s *server) status() ServerStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := ServerStatus{
		Name:        s.cfg.Name,
		Transport:   s.cfg.Type,
		Target:      s.cfg.Target,
		Status:      s.state,
		InFlight:    s.inflight.Load(),
		LastError:   s.lastErr,
		ConnectedAt: s.connectedAt,
	}
	if s.conn != nil {
		inv := s.conn.Inventory()
		st.Tools, st.Resources, st.Prompts = len(inv.Tools), len(inv.Resources), len(inv.Prompts)
		info := s.conn.Info()
		st.ServerName, st.ServerVersion, st.ProtocolVersion = info.Name, info.Version, info.ProtocolVersion
	}
	return st
}

// List returns the status of every server, by name.
func (h *Hub) List() []ServerStatus {
	h.mu.Lock()
	names := h.sortedNames()
	servers := make([]*server, len(names))
	for i, n := range names {
		servers[i] = h.servers[n]
	}
	h.mu.Unlock()
	out := make([]ServerStatus, len(servers))
	for i, s := range servers {
		out[i] = s.status()
	}
	return out
}

// Get returns one server's status.
func (h *Hub) Get(name string) (ServerStatus, error) {
	s, err := h.lookup(name)
	if err != nil {
		return ServerStatus{}, err
	}
	return s.status(), nil
}

type reasonError struct {
	base   error
	reason string
}

func (e reasonError) Error() string { return e.base.Error() + " (" + e.reason + ")" }
func (e reasonError) Unwrap() error { return e.base }

func wrapReason(base error, reason string) error { return reasonError{base, reason} }
