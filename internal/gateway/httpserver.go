package gateway

import (
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/weft-dev/weft/internal/config"
)

// readHeaderTimeout bounds the wait for a request's headers on a new or
// idle connection.
const readHeaderTimeout = 10 * time.Second

// NewHTTPServer returns the http.Server for the HTTP face: headers, bodies
// and idle keep-alive connections are bounded in time, and open connections
// in number (o.MaxConnections). No WriteTimeout: it would cut the SSE
// streams that carry notifications.
func NewHTTPServer(h http.Handler, o HTTPOptions) *http.Server {
	srv, _ := newHTTPServer(h, o)
	return srv
}

func newHTTPServer(h http.Handler, o HTTPOptions) (*http.Server, *connCap) {
	o = o.withDefaults()
	caps := newConnCap(o.MaxConnections)
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       o.IdleTimeout,
		ConnState:         caps.track,
	}
	// Shutdown counts a connection that has not sent a request as idle only
	// once it is 5 s old: an HTTP client's spare connection, or a browser's
	// preconnect, would hold weft's exit that long.
	srv.RegisterOnShutdown(caps.closeSilent)
	return srv, caps
}

// withDefaults fills the zero fields from config's defaults.
func (o HTTPOptions) withDefaults() HTTPOptions {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = maxBody
	}
	if o.MaxConnections <= 0 {
		o.MaxConnections = config.DefaultMaxConnections
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = config.DefaultIdleTimeout
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = config.DefaultBodyTimeout
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = config.DefaultMaxSessions
	}
	if o.SessionIdleTimeout <= 0 {
		o.SessionIdleTimeout = config.DefaultSessionIdleTimeout
	}
	return o
}

// connCap keeps at most max connections open. A new connection past the
// cap closes the oldest connection that is not serving a request (new or
// idle): a client that opens many connections and sends nothing cannot
// lock out one that sends requests, and weft's file descriptors stay
// bounded. Active connections are never cut; when every one is active the
// new connection is the one closed.
type connCap struct {
	max int

	mu    sync.Mutex
	conns map[net.Conn]connEntry // guarded by mu
}

type connEntry struct {
	state http.ConnState
	since time.Time
}

func newConnCap(max int) *connCap {
	return &connCap{max: max, conns: map[net.Conn]connEntry{}}
}

// track is the server's ConnState hook.
func (c *connCap) track(conn net.Conn, state http.ConnState) {
	c.mu.Lock()
	var victim net.Conn
	switch state {
	case http.StateHijacked, http.StateClosed:
		delete(c.conns, conn)
	default:
		c.conns[conn] = connEntry{state: state, since: time.Now()}
		if state == http.StateNew && len(c.conns) > c.max {
			victim = c.oldestIdleLocked(conn)
			delete(c.conns, victim)
		}
	}
	c.mu.Unlock()
	if victim != nil {
		_ = victim.Close() // the server sees the close and reports StateClosed
	}
}

// oldestIdleLocked picks the connection to close: the oldest one that has
// not sent a request yet (silent connections are what an exhaustion attack
// holds), else the oldest idle keep-alive connection (a client may be about to
// reuse it, so it goes second), else fresh itself when all others are active.
func (c *connCap) oldestIdleLocked(fresh net.Conn) net.Conn {
	for _, state := range []http.ConnState{http.StateNew, http.StateIdle} {
		var victim net.Conn
		var oldest time.Time
		for conn, e := range c.conns {
			if conn == fresh || e.state != state {
				continue
			}
			if victim == nil || e.since.Before(oldest) {
				victim, oldest = conn, e.since
			}
		}
		if victim != nil {
			return victim
		}
	}
	return fresh
}

// closeSilent closes every connection that has not sent a request yet.
func (c *connCap) closeSilent() {
	c.mu.Lock()
	var silent []net.Conn
	for conn, e := range c.conns {
		if e.state == http.StateNew {
			silent = append(silent, conn)
		}
	}
	c.mu.Unlock()
	for _, conn := range silent {
		_ = conn.Close() // the server sees the close and reports StateClosed
	}
}

// open reports how many connections are tracked (tests).
func (c *connCap) open() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.conns)
}
