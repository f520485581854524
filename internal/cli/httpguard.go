package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/gateway"
)

// httpOptions builds the HTTP face's guard for the address weft binds (SPEC
// S6): a non-loopback address needs a bearer token, read from the variable
// security.http_token_env names.
func httpOptions(ctx context.Context, cfg *config.Config, listen string) (gateway.HTTPOptions, error) {
	o := gateway.HTTPOptions{Listen: listen}
	if name := cfg.Security.HTTPTokenEnv; name != "" {
		o.Token = os.Getenv(name)
		if o.Token == "" {
			return o, fmt.Errorf("security.http_token_env names %s, but it is empty; set it to the bearer token clients must send", name)
		}
	}
	if cfg.Gateway.Auth != nil {
		auth, err := faceAuth(ctx, cfg.Gateway.Auth, listen, o.Token)
		if err != nil {
			return o, err
		}
		o.Auth = auth
	}
	if !gateway.IsLoopbackListen(listen) && o.Token == "" && o.Auth == nil {
		return o, fmt.Errorf("listen address %s is not loopback: set security.http_token_env to a variable holding a bearer token, or listen on 127.0.0.1", listen)
	}
	return o, nil
}
