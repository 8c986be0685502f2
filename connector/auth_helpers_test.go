package connector_test

import "github.com/mcpgen/mcpgen/connector/oauth"

func oauthInvalid() error { return oauth.ErrInvalidToken }
