package upstream

import (
	"errors"
	"fmt"
	"net/http"
)

// ErrUnauthorized is wrapped by a connect error when the remote server
// answered 401 or 403, so callers can tell missing credentials from a
// server that is down.
var ErrUnauthorized = errors.New("the server refused weft's credentials")

// authHint turns a failed connect after a 401 or 403 into a message that
// says so and what to set; other errors pass through, and so does every
// error of a server weft logs in to with OAuth (that login says what to do).
func (c *Conn) authHint(err error) error {
	if c.oauthHandler() != nil {
		return err
	}
	switch c.refused.Load() {
	case http.StatusUnauthorized:
		what := "it needs credentials; set them under headers in its entry, for example " +
			`headers = { Authorization = "Bearer ${TOKEN}" } with TOKEN in weft's environment`
		if len(c.cfg.Headers) > 0 {
			what = "the credentials in its headers were not accepted; check the values (and the variables they use) are current"
		}
		return fmt.Errorf("%s answered 401 Unauthorized: %s (%w: %v)", c.cfg.Target, what, ErrUnauthorized, err)
	case http.StatusForbidden:
		return fmt.Errorf("%s answered 403 Forbidden: the credentials in its headers lack access; check the token's permissions "+
			"(%w: %v)", c.cfg.Target, ErrUnauthorized, err)
	}
	return err
}
