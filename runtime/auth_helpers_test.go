package runtime_test

import "github.com/mcpgen/mcpgen/runtime/oauth"

func oauthInvalid() error { return oauth.ErrInvalidToken }
