//go:build unix

package e2e

import (
	"cmp"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/weft-dev/weft/internal/hub"
)

// checkPerUserStatus asserts what a running weft says of its per-user
// servers' users: `weft mcp list --json` (GET /admin/status) gives want,
// `weft mcp get` prints each server's line, and /metrics counts the live
// instances without naming a user.
func checkPerUserStatus(t *testing.T, e *env, metricsURL, token string, want map[string]hub.PerUserStatus) {
	t.Helper()
	out, errOut, code := e.run("mcp", "list", "--json")
	var listing struct{ Servers []hub.ServerStatus }
	if err := json.Unmarshal([]byte(out), &listing); code != 0 || err != nil {
		t.Fatalf("mcp list --json: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	got := map[string]hub.PerUserStatus{}
	for _, s := range listing.Servers {
		if s.PerUser != nil {
			got[s.Name] = *s.PerUser
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mcp list --json per_user = %+v, want %+v", got, want)
	}
	_, body := get(t, metricsURL, map[string]string{"Authorization": "Bearer " + token})
	for name, st := range want {
		detail, _, _ := e.run("mcp", "get", name)
		line := "per user: instances: " + cmp.Or(strings.Join(st.Instances, ", "), "none")
		if !strings.Contains(detail, line) {
			t.Errorf("mcp get %s lacks %q:\n%s", name, line, detail)
		}
		n, ok := metricValue(body, `weft_upstream_user_instances{server="`+name+`"}`)
		if int(n) != len(st.Instances) || !ok && len(st.Instances) > 0 {
			t.Errorf("weft_upstream_user_instances for %s = %v (found %v), want %d", name, n, ok, len(st.Instances))
		}
	}
	if strings.Contains(grepLines(body, "user_instances"), "user=") {
		t.Errorf("the per-user gauge has a user label:\n%s", grepLines(body, "user_instances"))
	}
}
