package hub

import (
	"time"

	"github.com/weft-dev/weft/internal/upstream"
)

// ServerStatus is what `weft mcp list` shows of one server.
type ServerStatus struct {
	Name            string       `json:"name"`
	Transport       string       `json:"transport"`
	Target          string       `json:"target"`
	Status          Status       `json:"status"`
	Tools           int          `json:"tools"`
	Resources       int          `json:"resources"`
	Prompts         int          `json:"prompts"`
	InFlight        int64        `json:"in_flight"`
	Breaker         BreakerState `json:"breaker"`
	Failures        int          `json:"consecutive_failures,omitempty"`
	LastError       string       `json:"last_error,omitempty"`
	NextRetry       time.Time    `json:"next_retry,omitzero"`
	Reconnects      int          `json:"reconnect_attempts,omitempty"`
	ConnectedAt     time.Time    `json:"connected_at,omitzero"`
	ServerName      string       `json:"server_name,omitempty"`
	ServerVersion   string       `json:"server_version,omitempty"`
	ProtocolVersion string       `json:"protocol_version,omitempty"`
	// PerUser, for a server that runs one instance per user, names the
	// users; a running weft's face fills it in (gateway.Options.PerUser).
	PerUser *PerUserStatus `json:"per_user,omitempty"`
}

// PerUserStatus names the users of a per-user server: those with a live
// instance, and those with a stored login (oauth.per_user) or stored
// secrets (a per_user stdio server). Names only, sorted.
type PerUserStatus struct {
	Instances []string `json:"instances"`
	Logins    []string `json:"logins,omitempty"`
	Secrets   []string `json:"secrets,omitempty"`
}

func (s *server) status() ServerStatus {
	br, fails := s.breaker.snapshot()
	inflight := s.inFlight()
	s.mu.Lock()
	defer s.mu.Unlock()
	st := ServerStatus{
		Name:        s.name,
		Transport:   s.cfg.Type,
		Target:      s.cfg.RedactedTarget(),
		Status:      s.state,
		InFlight:    inflight,
		Breaker:     br,
		Failures:    fails,
		LastError:   s.lastErr,
		ConnectedAt: s.connectedAt,
	}
	if s.state == StatusDisconnected {
		st.NextRetry, st.Reconnects = s.retryAt, s.reconnects
	}
	if s.gen != nil {
		inv := s.gen.conn.Inventory()
		st.Tools, st.Resources, st.Prompts = served(inv), len(inv.Resources), len(inv.Prompts)
		info := s.gen.conn.Info()
		st.ServerName, st.ServerVersion, st.ProtocolVersion = info.Name, info.Version, info.ProtocolVersion
	}
	return st
}

// List returns the status of every server, by name.
func (h *Hub) List() []ServerStatus {
	servers := h.visible()
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

// served counts the tools of inv that weft can serve (not refused for an
// invalid schema).
func served(inv upstream.Inventory) int {
	n := 0
	for _, t := range inv.Tools {
		if inv.Digests[t].Refused == "" {
			n++
		}
	}
	return n
}

// Serving returns the named server's status and whether it serves: active,
// with the tools of its current connection in the catalog. A server is
// active a little before the build that lists its tools: one that starts
// with others waits for its batch (see arrive), and a reconnect or swap
// for the build that follows it.
func (h *Hub) Serving(name string) (Status, bool, error) {
	s, err := h.lookup(name)
	if err != nil {
		return "", false, err
	}
	g, st := s.current()
	select {
	case <-s.settled:
		return st, st == StatusActive && g != nil && g.listed.Load(), nil
	default:
		return st, false, nil
	}
}
