package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/testutil"
)

// TestStatusAnswerIsTheEncodedStatus: the admin status, whose catalog part
// is encoded once per catalog, is byte for byte json.Encoder's encoding of
// StatusOf with the per-user servers' users, before and after the catalog
// changes (a server added, one listing nothing but a clash) and when asked
// again with no change.
func TestStatusAnswerIsTheEncodedStatus(t *testing.T) {
	ctx := context.Background()
	targets := map[string]string{} // before the hub, so that it closes first
	for _, name := range []string{"alpha", "beta", "gamma"} {
		targets[name] = testutil.ServeHTTP(t, testutil.NewServer(testutil.ServerOptions{Name: name}))
	}
	h := hub.New(hub.Options{Reserved: gateway.BuiltinNames, MaxTools: 3})
	t.Cleanup(func() { h.Close(context.Background()) })
	users := map[string]*hub.PerUserStatus{"alpha": {Instances: []string{"ada"}}}
	gw := gateway.New(h, gateway.Options{Version: "test", PerUser: func() map[string]*hub.PerUserStatus { return users }})
	srv := httptest.NewServer(gw.Handler())
	t.Cleanup(srv.Close)

	check := func(when string) {
		t.Helper()
		want := gateway.StatusOf(h)
		for i := range want.Servers {
			want.Servers[i].PerUser = users[want.Servers[i].Name]
		}
		var enc bytes.Buffer
		if err := json.NewEncoder(&enc).Encode(want); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			resp, err := http.Get(srv.URL + gateway.StatusPath)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if resp.Header.Get("Content-Type") != "application/json" || !bytes.Equal(got, enc.Bytes()) {
				t.Fatalf("%s: status answered (%s)\n%s\nwant\n%s", when, resp.Header.Get("Content-Type"), got, enc.Bytes())
			}
		}
	}
	check("no servers")
	for _, name := range []string{"alpha", "beta"} {
		if _, err := h.Add(ctx, &config.Server{Name: name, Type: config.TransportHTTP, Target: targets[name]}); err != nil {
			t.Fatal(err)
		}
		check("after adding " + name)
	}
	if st := gateway.StatusOf(h); len(st.Hidden) == 0 || len(st.Listed) == 0 {
		t.Fatalf("listed %v, search-only %v: want both (max_tools 3)", st.Listed, st.Hidden)
	}
	alpha := "alpha"
	if _, err := h.Add(ctx, &config.Server{Name: "gamma", Type: config.TransportHTTP, Target: targets["gamma"], Prefix: &alpha}); err != nil {
		t.Fatal(err)
	}
	if len(gateway.StatusOf(h).Clashes) == 0 {
		t.Fatal("no clash for a server listing alpha's names")
	}
	check("after a clash")
}
