package faceauth

import (
	"context"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

// TestUserClaim checks which claim names the user of a verified token.
func TestUserClaim(t *testing.T) {
	is := newIssuer(t)
	is.mu.Lock()
	k1 := is.keys["k1"]
	is.mu.Unlock()
	tok := is.sign(t, "k1", k1, func(c jwt.MapClaims) { c["client_id"] = "app-7"; c["email"] = 42 })
	for _, row := range []struct{ claim, want string }{{"", "alice"}, {"sub", "alice"}, {"client_id", "app-7"}, {"email", ""}, {"missing", ""}} {
		v, err := New(context.Background(), Config{Issuer: is.srv.URL, Audience: audience, UserClaim: row.claim})
		if err != nil {
			t.Fatal(err)
		}
		info, err := v.Verify(context.Background(), tok, nil)
		v.Close()
		if err != nil || info.UserID != row.want {
			t.Errorf("user_claim %q: user %q (%v), want %q", row.claim, info.UserID, err, row.want)
		}
	}
}
