package daemon

import (
	"context"
	"fmt"
	"net"
	"net/http"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/faceauth"
	"github.com/weft-dev/weft/internal/gateway"
)

// faceAuth builds the [gateway.auth] guard of the HTTP face; the verifier's
// key refreshes end with ctx.
func faceAuth(ctx context.Context, a *config.GatewayAuth, listen, static string) (func(http.Handler) http.Handler, error) {
	audience := a.Audience
	if audience == "" {
		if _, port, err := net.SplitHostPort(listen); err != nil || port == "0" {
			return nil, fmt.Errorf("gateway.auth.audience is not set and listen address %s has no fixed port; set audience to the URL clients use for weft", listen)
		}
		audience = "http://" + listen + gateway.Endpoint
	}
	v, err := faceauth.New(ctx, faceauth.Config{
		Issuer:         a.Issuer,
		Audience:       audience,
		JWKSURL:        a.JWKSURL,
		RequiredScopes: a.RequiredScopes,
		ClockSkew:      a.ClockSkew.Std(),
		Endpoint:       gateway.Endpoint,
		StaticToken:    static,
		UserClaim:      a.UserClaim,
	})
	if err != nil {
		return nil, err
	}
	context.AfterFunc(ctx, v.Close)
	return v.Wrap, nil
}
